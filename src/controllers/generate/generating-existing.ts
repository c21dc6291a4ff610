/**
 * A GeneratingPolicy's triggers that exist now: the objects of the resources its matchConstraints
 * name (`*` in group, version or resource: every listable resource discovery serves that fits), a
 * NamespacedGeneratingPolicy's in its namespace only, each evaluated as if just created (its
 * namespaceSelector and objectSelector decided on it). For
 * `evaluation.generateExisting.enabled` they become `cel-generate` work when the policy appears
 * or changes; when a synchronized policy is deleted, what they would generate says which kinds
 * its downstream is of (no rule names them).
 */
import {
  type CompiledPolicy,
  type GeneratedResource,
  type GroupVersionKind,
  isObject,
  type JsonValue,
  type Resource,
} from "../../engine/index.js";
import { type ExistingDeps, existingTriggerEngine, listing, namespacesByName, NOT_READ } from "./existing-triggers.js";
import { NO_NAMESPACE } from "../namespace-facts.js";
import { policyKeyOf } from "./run-update-request.js";
import type { GenerateWorkItem } from "./update-request.js";

interface Matched {
  readonly object: Resource;
  readonly rule: string;
  readonly generated: readonly GeneratedResource[];
}

/** Whether the policy generates for the triggers that exist when it appears. */
export function generatesExisting(policy: CompiledPolicy): boolean {
  return policy.language === "generating" && policy.generating.generateExisting;
}

/** A listed object and the kind (with its plural) it is matched as: a custom resource's plural is known only from discovery. */
interface Candidate {
  readonly object: Resource;
  readonly matchKind: GroupVersionKind;
}

/**
 * The existing objects of what the policy's matchConstraints resourceRules name, `*` forms
 * included (every listable resource discovery serves that fits; subresources name no objects), each
 * resource listed once however many rules name it; a NamespacedGeneratingPolicy's in its namespace
 * only (cluster-scoped ones are not listed). namespaceSelector, objectSelector and
 * excludeResourceRules are decided by the engine on each object.
 */
async function* candidates(policy: CompiledPolicy, deps: ExistingDeps): AsyncGenerator<Candidate> {
  if (policy.language !== "generating") return;
  yield* resourceRuleObjects(policy.generating.constraints.resourceRules?.include ?? [], policy.namespace, deps);
}

/** What a CEL resource rule names: groups, versions and resources (`*` forms included). */
interface ResourceRule {
  readonly groups: readonly string[];
  readonly versions: readonly string[];
  readonly resources: readonly string[];
}

/**
 * The existing objects of what resource rules name (every listable resource discovery serves that
 * fits), each resource listed once; in `namespace` only when it is not "" (cluster-scoped ones are
 * then not listed). A listing that fails is an ExistingListError.
 */
export async function* resourceRuleObjects(
  rules: readonly ResourceRule[],
  namespace: string,
  deps: ExistingDeps,
): AsyncGenerator<Candidate> {
  const seen = new Set<string>();
  for (const rule of rules)
    for (const group of rule.groups)
      for (const version of rule.versions)
        for (const resource of rule.resources)
          for (const where of await deps.paths.listable(group, version, resource)) {
            const r = where.resource;
            const key = `${r.group}/${r.version}/${r.resource}`;
            if (seen.has(key) || (namespace !== "" && !r.namespaced)) continue;
            seen.add(key);
            const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
            const at = r.namespaced ? namespace : "";
            const list = (await listing(`${apiVersion}/${r.kind}`, at, () =>
              deps.client.getJson(where.collection(at)),
            )) as {
              items?: Resource[];
            };
            const matchKind = { group: r.group, version: r.version, kind: r.kind, resource: r.resource };
            for (const item of list.items ?? []) yield { object: { ...item, apiVersion, kind: r.kind }, matchKind };
          }
}

/** Each existing trigger the policy matches, with what it would generate for it now (clone sources not read). */
async function* matchedTriggers(policy: CompiledPolicy, deps: ExistingDeps): AsyncGenerator<Matched> {
  const engine = existingTriggerEngine(deps);
  const namespaces = await namespacesByName(deps);
  for await (const { object, matchKind } of candidates(policy, deps)) {
    const meta = isObject(object["metadata"]) ? object["metadata"] : {};
    const ns = typeof meta["namespace"] === "string" ? meta["namespace"] : "";
    const request = {
      resource: object,
      operation: "CREATE" as const,
      ...(namespaces.get(ns) ?? NO_NAMESPACE),
      matchKind,
    };
    const [result] = engine.generate(policy, { ...request, background: true }, NOT_READ).rules;
    if (result !== undefined) yield { object, rule: result.rule, generated: result.generated ?? [] };
  }
}

/** The `cel-generate` work of a generateExisting policy over the triggers that exist now. */
export async function generatingExistingWork(policy: CompiledPolicy, deps: ExistingDeps): Promise<GenerateWorkItem[]> {
  if (!generatesExisting(policy) || policy.language !== "generating") return [];
  const synchronize = policy.generating.synchronize;
  const text = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
  const out: GenerateWorkItem[] = [];
  for await (const { object, rule } of matchedTriggers(policy, deps)) {
    const meta = isObject(object["metadata"]) ? object["metadata"] : {};
    out.push({
      requestType: "cel-generate",
      policy: policyKeyOf(policy),
      rules: [{ rule, synchronize, deleteDownstream: false }],
      trigger: {
        apiVersion: text(object["apiVersion"]),
        kind: text(object["kind"]),
        namespace: text(meta["namespace"]),
        name: text(meta["name"]),
        uid: text(meta["uid"]),
      },
      operation: "CREATE",
      userInfo: {},
      admissionRequest: {},
    });
  }
  return out;
}

/** The kinds a GeneratingPolicy would generate for the triggers that exist now (its downstream's kinds). */
export async function generatingDownstreamKinds(
  policy: CompiledPolicy,
  deps: ExistingDeps,
): Promise<{ apiVersion: string; kind: string }[]> {
  const out = new Map<string, { apiVersion: string; kind: string }>();
  for await (const { generated } of matchedTriggers(policy, deps))
    for (const g of generated) {
      const apiVersion = typeof g.toApply["apiVersion"] === "string" ? g.toApply["apiVersion"] : "";
      const kind = typeof g.toApply["kind"] === "string" ? g.toApply["kind"] : "";
      out.set(`${apiVersion}|${kind}`, { apiVersion, kind });
    }
  return [...out.values()];
}

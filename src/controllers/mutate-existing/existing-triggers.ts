/**
 * `mutate.mutateExistingOnPolicyUpdate` (and the deprecated `spec.mutateExistingOnPolicyUpdate` as
 * its fallback, as in Kyverno): when a policy appears or its spec changes, each existing object that
 * one of those rules matches becomes a mutate UpdateRequest, so the rule's targets are patched as if
 * the trigger had just been created. The trigger objects are listed by the rules' match kinds (a
 * namespaced Policy's in its namespace only) and matched by the engine in background mode.
 */
import {
  kyvernoCompiledRules,
  type CompiledPolicy,
  err,
  type ExistingResources,
  isMutateExisting,
  isObject,
  type JsonObject,
  mutateExistingScanView,
  mutateExistingView,
  resourceNamespace,
  type JsonValue,
  type Resource,
} from "../../engine/index.js";
import {
  type ExistingDeps,
  existingTriggerEngine,
  existingTriggers,
  namespacesByName,
} from "../generate/existing-triggers.js";
import { resourceRuleObjects } from "../generate/generating-existing.js";
import { NO_NAMESPACE } from "../namespace-facts.js";
import { policyKeyOf } from "../generate/run-update-request.js";
import type { GenerateWorkItem } from "../generate/update-request.js";

const NOT_READ: ExistingResources = {
  get: () => err("pending", "not read while finding existing triggers"),
  list: () => err("pending", "not read while finding existing triggers"),
};

/** The mutate-existing rules of `policy` that run when the policy appears or changes. */
export function mutateOnPolicyUpdateRules(policy: CompiledPolicy): string[] {
  const fallback = (policy.document.spec as JsonObject)["mutateExistingOnPolicyUpdate"] === true;
  return kyvernoCompiledRules(policy)
    .filter((r) => {
      if (!isMutateExisting(r) || r.autogenOf !== undefined) return false;
      const own = r.rule.mutate?.["mutateExistingOnPolicyUpdate"];
      return own === true || (own === undefined && fallback);
    })
    .map((r) => r.name);
}

/** One mutate work item per existing trigger and rule of `policy` that runs on policy update. */
export async function mutateExistingWork(policy: CompiledPolicy, deps: ExistingDeps): Promise<GenerateWorkItem[]> {
  const rules = mutateOnPolicyUpdateRules(policy);
  if (rules.length === 0) return [];
  const out: GenerateWorkItem[] = [];
  for await (const { engine, object, request } of existingTriggers(policy, rules, deps)) {
    const response = engine.mutate(policy, request, NOT_READ);
    const matched = new Set(response.rules.filter((r) => r.status !== "skip").map((r) => r.rule));
    for (const rule of rules) if (matched.has(rule)) out.push(workFor(policy, object, rule));
  }
  return out;
}

function workFor(policy: CompiledPolicy, object: Resource, rule: string): GenerateWorkItem {
  const meta = isObject(object["metadata"]) ? object["metadata"] : {};
  const text = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
  return {
    requestType: "mutate",
    policy: policyKeyOf(policy),
    rules: [{ rule, synchronize: false, deleteDownstream: false }],
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
  };
}

/**
 * A mutate-existing MutatingPolicy that appeared or changed: one `cel-mutate` request without a
 * trigger, as Kyverno's policy controller writes, whose run lists and patches the policy's targets
 * (run-mutate-scan.ts). None for a policy whose targets an expression computes from a trigger.
 */
export function mutatingScanWork(policy: CompiledPolicy): GenerateWorkItem[] {
  if (mutateExistingScanView(policy) === undefined) return [];
  return [
    {
      requestType: "cel-mutate",
      policy: policyKeyOf(policy),
      rules: [],
      trigger: { apiVersion: "", kind: "", namespace: "", name: "", uid: "" },
      operation: "UPDATE",
      userInfo: {},
      admissionRequest: {},
    },
  ];
}

/**
 * A mutate-existing MutatingPolicy whose targets `targetMatchConstraints.expression` computes, when
 * it appears or changes: one mutate request per existing trigger it matches (its matchConstraints'
 * objects, a namespaced policy's in its namespace), an UPDATE of the trigger as it is, as Kyverno's
 * policy controller writes one per trigger.
 */
export async function mutatingTriggerWork(policy: CompiledPolicy, deps: ExistingDeps): Promise<GenerateWorkItem[]> {
  if (policy.language !== "mutating") return [];
  const bodies = policy.mutating.filter((b) => b.existing?.expression !== undefined);
  if (bodies.length === 0) return [];
  const engine = existingTriggerEngine(deps);
  const namespaces = await namespacesByName(deps);
  const view = mutateExistingView(policy);
  const out: GenerateWorkItem[] = [];
  const seen = new Set<string>();
  for (const body of bodies)
    for await (const { object, matchKind } of resourceRuleObjects(
      body.constraints.resourceRules?.include ?? [],
      policy.namespace,
      deps,
    )) {
      const request = {
        resource: object,
        operation: "UPDATE" as const,
        ...(namespaces.get(resourceNamespace(object)) ?? NO_NAMESPACE),
        matchKind,
        background: true,
      };
      if (engine.mutate(view, request, NOT_READ).rules.length === 0) continue;
      const item = workFor(policy, object, "");
      const key = `${item.trigger.apiVersion}/${item.trigger.kind}/${item.trigger.namespace}/${item.trigger.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({
        ...item,
        operation: "UPDATE",
        admissionRequest: {
          operation: "UPDATE",
          kind: { group: matchKind.group, version: matchKind.version, kind: matchKind.kind },
          resource: { group: matchKind.group, version: matchKind.version, resource: matchKind.resource ?? "" },
          namespace: item.trigger.namespace,
          name: item.trigger.name,
          object,
        },
      });
    }
  return out;
}

/** Whether a MutatingPolicy patches existing targets when it appears or changes (a scan, or per existing trigger). */
export function mutatesExistingOnAppearance(policy: CompiledPolicy): boolean {
  return policy.language === "mutating" && policy.mutating.some((b) => b.existing !== undefined);
}

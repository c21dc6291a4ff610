/**
 * `generate.generateExisting` (and the deprecated `spec.generateExisting` as its fallback, as in
 * Kyverno): when a policy appears (or its spec changes), the objects that already exist and match
 * one of those rules become work, as if each had just been created. Objects of the rules' match
 * kinds are listed (a namespaced Policy's in its namespace only) and matched by the engine in
 * background mode (user info is ignored); what matches is run by the controller like any request.
 */
import {
  kyvernoCompiledRules,
  type CompiledPolicy,
  createEngine,
  type Engine,
  type RequestInput,
  err,
  type ExistingResources,
  isObject,
  type JsonObject,
  type JsonValue,
  type Resource,
} from "../../engine/index.js";
import { ClusterReads, describeKubeError } from "../../kube/cluster-reads.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { cryptoRandom, nodeHasher, nodeSignatures, systemClock } from "../../platform/node-ports.js";
import { offlineHosts } from "../../platform/offline-context.js";
import { namespaceFactsByName, type NamespaceFacts, NO_NAMESPACE } from "../namespace-facts.js";
import type { KindPaths } from "./kind-paths.js";
import { policyKeyOf } from "./run-update-request.js";
import type { GenerateWorkItem } from "./update-request.js";

/** Clone sources are not read while finding existing triggers (the work reads them when it runs). */
export const NOT_READ: ExistingResources = {
  get: () => err("pending", "not read while finding existing triggers"),
  list: () => err("pending", "not read while finding existing triggers"),
};

/** The rules of `policy` that generate for existing triggers. */
export function generateExistingRules(policy: CompiledPolicy): string[] {
  const fallback = (policy.document.spec as JsonObject)["generateExisting"] === true;
  return kyvernoCompiledRules(policy)
    .filter((r) => {
      const g = r.rule.generate;
      if (!isObject(g)) return false;
      return g["generateExisting"] === true || (g["generateExisting"] === undefined && fallback);
    })
    .map((r) => r.name);
}

/**
 * The kinds a rule matches, as written in match.any/all[].resources.kinds (and the bare
 * match.resources), wildcard forms left out: they are not listed (a policy webhook refuses
 * existing-trigger rules that name one: server/registration/existing-trigger-permissions.ts).
 */
function matchKinds(policy: CompiledPolicy, rules: readonly string[]): string[] {
  return writtenKinds(policy, rules).filter((k) => !k.includes("*"));
}

/** The kinds a rule matches, as written, wildcard forms (`*`, or `*` as the group, version or kind) included. */
export function writtenKinds(policy: CompiledPolicy, rules: readonly string[]): string[] {
  const out = new Set<string>();
  for (const compiled of kyvernoCompiledRules(policy)) {
    if (!rules.includes(compiled.name)) continue;
    const match = (compiled.rule as unknown as JsonObject)["match"];
    if (!isObject(match)) continue;
    const filters: JsonValue[] = [
      ...(Array.isArray(match["any"]) ? match["any"] : []),
      ...(Array.isArray(match["all"]) ? match["all"] : []),
      match,
    ];
    for (const f of filters) {
      const kinds = isObject(f) && isObject(f["resources"]) ? f["resources"]["kinds"] : undefined;
      for (const k of Array.isArray(kinds) ? kinds : []) if (typeof k === "string") out.add(k);
    }
  }
  return [...out];
}

function splitKind(k: string): { apiVersion: string; kind: string } {
  const parts = k.split("/");
  const kind = parts.pop() ?? "";
  return { apiVersion: parts.join("/"), kind };
}

export interface ExistingDeps {
  readonly client: KubeClient;
  readonly paths: KindPaths;
}

/**
 * A list of existing triggers the API server refused or did not answer: which kind, where and with
 * what verb, so the failure can be reported on the policy (existing-list-failure.ts).
 */
export class ExistingListError extends Error {
  constructor(
    /** The kind as the rule names it (`v1/ConfigMap`, `Namespace`). */
    readonly kind: string,
    /** "" for every namespace. */
    readonly namespace: string,
    error: unknown,
  ) {
    super(describeKubeError(error), { cause: error });
  }
  readonly verb = "list";
}

/** `read()`, its failure an ExistingListError naming the kind and the namespace. */
export async function listing<T>(kind: string, namespace: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    throw new ExistingListError(kind, namespace, e);
  }
}

async function listKind(deps: ExistingDeps, kind: string, namespace: string): Promise<Resource[]> {
  const k = splitKind(kind);
  const where = await deps.paths.resolve(k.apiVersion, k.kind);
  if (where === undefined) return [];
  const r = where.resource;
  const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
  const at = r.namespaced ? namespace : "";
  const list = (await listing(kind, at, () => deps.client.getJson(where.collection(at)))) as { items?: Resource[] };
  return (list.items ?? []).map((i) => ({ ...i, apiVersion, kind: r.kind }));
}

/** Every Namespace's facts (labels and the object, CEL's `namespaceObject`) by name. */
export async function namespacesByName(deps: ExistingDeps): Promise<Map<string, NamespaceFacts>> {
  const list = (await listing("v1/Namespace", "", () => deps.client.getJson("/api/v1/namespaces"))) as {
    items?: Resource[];
  };
  return namespaceFactsByName(list);
}

/**
 * Each object that exists now of the kinds `rules` match (a namespaced Policy's in its namespace
 * only), with the background-mode request that evaluates it as if it had just been created, and
 * the engine to evaluate it with. Kinds are listed one at a time as the caller walks on.
 */
export async function* existingTriggers(
  policy: CompiledPolicy,
  rules: readonly string[],
  deps: ExistingDeps,
): AsyncGenerator<{ readonly engine: Engine; readonly object: Resource; readonly request: RequestInput }> {
  const engine = existingTriggerEngine(deps);
  const namespaces = await namespacesByName(deps);
  for (const kind of matchKinds(policy, rules))
    for (const object of await listKind(deps, kind, policy.namespace)) {
      const meta = isObject(object["metadata"]) ? object["metadata"] : {};
      const ns = typeof meta["namespace"] === "string" ? meta["namespace"] : "";
      const request: RequestInput = {
        resource: object,
        operation: "CREATE",
        ...(namespaces.get(ns) ?? NO_NAMESPACE),
        background: true,
      };
      yield { engine, object, request };
    }
}

/** The engine that evaluates existing triggers, its context entries read from the cluster. */
export function existingTriggerEngine(deps: ExistingDeps): Engine {
  return createEngine({
    clock: systemClock,
    random: cryptoRandom,
    hasher: nodeHasher,
    context: new ClusterReads(deps.client).sources(),
    hosts: offlineHosts,
    signatures: nodeSignatures,
  });
}

/** The work for `policy`'s generateExisting rules over the objects that exist now. */
export async function existingTriggerWork(policy: CompiledPolicy, deps: ExistingDeps): Promise<GenerateWorkItem[]> {
  const rules = generateExistingRules(policy);
  if (rules.length === 0) return [];
  const out: GenerateWorkItem[] = [];
  for await (const { engine, object, request } of existingTriggers(policy, rules, deps)) {
    const response = engine.generate(policy, request, NOT_READ);
    const matched = response.rules.map((r) => r.rule).filter((r) => rules.includes(r));
    if (matched.length > 0) out.push(workFor(policy, object, matched));
  }
  return out;
}

function workFor(policy: CompiledPolicy, object: Resource, rules: readonly string[]): GenerateWorkItem {
  const meta = isObject(object["metadata"]) ? object["metadata"] : {};
  const text = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
  return {
    policy: policyKeyOf(policy),
    rules: rules.map((rule) => {
      const g = kyvernoCompiledRules(policy).find((r) => r.name === rule)?.rule.generate;
      return { rule, synchronize: isObject(g) && g["synchronize"] === true, deleteDownstream: false };
    }),
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

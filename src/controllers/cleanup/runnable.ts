/**
 * What the cleanup loop runs, whichever kind wrote it (policy-loop.ts runs both through one loop):
 * a kyverno.io CleanupPolicy / ClusterCleanupPolicy (its match kinds, `cleanupDecision`) or a
 * policies.kyverno.io DeletingPolicy / NamespacedDeletingPolicy (its matchConstraints' resource
 * rules, `deletingVerdict`). Each names what to list (a selector per kind or resource, with the
 * label its metrics carry), its schedule, namespace and propagation, and decides which listed
 * objects to delete; an object it cannot decide is an error, never a deletion.
 */
import {
  compileCleanupPolicy,
  deletingPolicyVerdict,
  parseKindSelector,
  POLICY_KINDS,
  type AnyCompiledException,
  type CompiledPolicy,
  type CompileOutcome,
  type EngineEnv,
  type JsonObject,
  type JsonValue,
  type Resource,
} from "../../engine/index.js";
import type { ResourceSelector } from "../../kube/discovery.js";
import type { Gvr } from "../../kube/types.js";
import { cleanupDeletions, type CleanupDeletions } from "./reconcile.js";

interface Candidate {
  readonly resource: Resource;
  readonly namespaceLabels: Readonly<Record<string, string>>;
  /** Its Namespace as read (CEL's `namespaceObject`), a Namespace's itself; absent for another cluster-scoped object. */
  readonly namespaceObject?: Resource;
  /** The resource's plural, as listed. */
  readonly plural: string;
}

export interface RunnablePolicy {
  readonly schedule: string;
  /** "" for a cluster-wide policy; a namespaced one lists and deletes only here. */
  readonly namespace: string;
  readonly propagation: string | undefined;
  /** What to list: each selector with the `resource_kind` (`resource`) label its deletions are counted under. */
  readonly selectors: readonly { readonly label: string; readonly selector: ResourceSelector }[];
  /**
   * Which counters its deletions go to: a kyverno.io cleanup policy's `kyverno_cleanup_controller_*`,
   * a DeletingPolicy's `kyverno_deleting_controller_*` (as Kyverno 1.19's two controllers count them).
   */
  readonly counted: "cleanup" | "deleting";
  /** `exceptions`: the policies.kyverno.io PolicyExceptions in force (a DeletingPolicy keeps what one excepts). */
  decide(
    candidates: readonly Candidate[],
    env: EngineEnv,
    exceptions?: readonly AnyCompiledException[],
  ): CleanupDeletions;
}

/** The storage version the loop reads each group's deleting kinds at (Kyverno 1.19's CRDs, deploy/crds). */
const STORAGE_VERSION: Readonly<Record<string, string>> = { "kyverno.io": "v2", "policies.kyverno.io": "v1beta1" };

/**
 * The kinds the loop runs, from the engine's kind registry: those that delete (the `delete` phase),
 * each with the resource it is read at (its group, storage version and plural).
 */
export const RUNNABLE_KINDS: readonly { readonly kind: string; readonly gvr: Gvr }[] = POLICY_KINDS.filter((d) =>
  d.phases.includes("delete"),
).map((d) => ({
  kind: d.kind,
  gvr: { group: d.group, version: STORAGE_VERSION[d.group] ?? "v1", resource: d.resource },
}));

/** The policy compiled for the loop, or the problems (`<field>: <message>`, joined) that keep it from running. */
export function compileRunnable(
  kind: string,
  object: JsonObject,
  deps: { readonly env: EngineEnv; readonly compile: (doc: JsonValue) => CompileOutcome },
): { ok: true; value: RunnablePolicy } | { ok: false; error: string } {
  const entry = RUNNABLE_KINDS.find((k) => k.kind === kind);
  const apiVersion = entry === undefined ? "" : `${entry.gvr.group}/${entry.gvr.version}`;
  const doc = { ...object, apiVersion, kind } as JsonObject;
  if (entry?.gvr.group === "kyverno.io") {
    const compiled = compileCleanupPolicy(doc, deps.env);
    if (!compiled.ok) return { ok: false, error: compiled.error.map((p) => `${p.path}: ${p.message}`).join("; ") };
    const p = compiled.value;
    return {
      ok: true,
      value: {
        schedule: p.schedule,
        namespace: p.namespace,
        propagation: p.propagation,
        selectors: p.kinds.map((k) => ({ label: k, selector: { by: "kind", ...parseKindSelector(k) } })),
        counted: "cleanup",
        decide: (candidates, env) => cleanupDeletions(p, candidates, env),
      },
    };
  }
  const compiled = deps.compile(doc);
  if (!compiled.ok) return { ok: false, error: compiled.problems.map((p) => `${p.path}: ${p.message}`).join("; ") };
  if (compiled.policy.language !== "deleting") return { ok: false, error: `kind: ${kind} is not a DeletingPolicy` };
  return { ok: true, value: deletingRunnable(compiled.policy) };
}

function deletingRunnable(policy: Extract<CompiledPolicy, { language: "deleting" }>): RunnablePolicy {
  const body = policy.deleting;
  const selectors: { label: string; selector: ResourceSelector }[] = [];
  for (const rule of body.resourceRules)
    for (const group of rule.groups)
      for (const version of rule.versions)
        for (const resource of rule.resources)
          if (!resource.includes("/"))
            selectors.push({ label: resource, selector: { by: "resource", group, version, resource } });
  return {
    schedule: body.schedule,
    namespace: policy.namespace,
    propagation: body.propagation,
    selectors,
    counted: "deleting",
    decide: (candidates, env, exceptions) => {
      const deletions: Resource[] = [];
      const errors: { resource: Resource; message: string }[] = [];
      for (const c of candidates) {
        const v = deletingPolicyVerdict(policy, c, { ports: env.ports, ...(exceptions ? { exceptions } : {}) });
        if (v.kind === "delete") deletions.push(c.resource);
        else if (v.kind === "error") errors.push({ resource: c.resource, message: v.message });
      }
      return { deletions, errors };
    },
  };
}

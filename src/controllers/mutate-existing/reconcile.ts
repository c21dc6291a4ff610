/**
 * One mutate UpdateRequest decided (Kyverno `pkg/background/mutate/mutate.go`): from the engine's
 * results for the request's rule (one per target, each with the patched target) and each target as
 * it is now, the writes to make and the state the request ends in. Pure: run-mutate-request.ts
 * reads and writes the cluster.
 * - a target the rule patched is updated (with the resourceVersion it was patched from, so a
 *   concurrent change is a conflict and the request is retried); one the patch leaves as it is, or
 *   one deleted since, is not written;
 * - a skipped target (a target's preconditions) is no failure; an error, fail or warn result fails
 *   the request with Kyverno's message;
 * - a namespaced Policy writes only targets in its own namespace (tenant rule 1, checked after
 *   substitution, whatever the engine let through).
 */
import {
  type JsonValue,
  type Resource,
  resourceKind,
  resourceName,
  resourceNamespace,
  type RuleResult,
} from "../../engine/index.js";

export interface MutateReconcileInput {
  /** `namespace` for a namespaced Policy, undefined for a ClusterPolicy; `missing` when the policy is gone. */
  readonly policy: { readonly namespace: string | undefined } | "missing";
  readonly policyKey: string;
  /** Why the trigger could not be read, when it could not. */
  readonly triggerProblem: string | undefined;
  /** The engine's results for the request's rule. */
  readonly results: readonly RuleResult[];
  /** A target as it is now; undefined when it no longer exists. */
  readonly current: (target: Resource) => Resource | undefined;
}

export interface TargetUpdate {
  readonly type: "update";
  readonly rule: string;
  readonly resource: Resource;
}

interface MutateReconciled {
  readonly actions: readonly TargetUpdate[];
  readonly state: "Completed" | "Failed";
  readonly message: string;
}

export function describeResource(r: Resource): string {
  const ns = resourceNamespace(r);
  return `${resourceKind(r)} ${ns === "" ? "" : `${ns}/`}${resourceName(r)}`;
}

export function reconcileMutateExisting(input: MutateReconcileInput): MutateReconciled {
  if (input.policy === "missing") return failed(`policy ${input.policyKey} not found`);
  if (input.triggerProblem !== undefined) return failed(input.triggerProblem);
  const own = input.policy.namespace;
  const actions: TargetUpdate[] = [];
  const failures: string[] = [];
  for (const r of input.results) {
    if (r.status === "skip") continue;
    if (r.status !== "pass") {
      failures.push(`failed to mutate existing resource, rule ${r.rule}, response ${r.status}: ${r.message}`);
      continue;
    }
    const patched = r.patchedTarget;
    if (patched === undefined) {
      failures.push(`rule ${r.rule}: empty resource to patch`);
      continue;
    }
    if (own !== undefined && resourceNamespace(patched) !== own) {
      failures.push(
        `rule ${r.rule}: a namespaced Policy (namespace ${own}) can only mutate targets in its own namespace, not ${describeResource(patched)}`,
      );
      continue;
    }
    const now = input.current(patched);
    if (now === undefined || jsonEqual(now, patched)) continue;
    actions.push({ type: "update", rule: r.rule, resource: patched });
  }
  return failures.length > 0
    ? { actions, state: "Failed", message: failures.join("; ") }
    : { actions, state: "Completed", message: "" };
}

function failed(message: string): MutateReconciled {
  return { actions: [], state: "Failed", message };
}

function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => jsonEqual(a[k], b[k]));
}

/**
 * What `kyverno_policy_changes_total` counts when the policy set moves from one snapshot to the
 * next (Kyverno's policy metrics controller): a new policy is "created"; a policy whose spec
 * changed is "updated" under its old labels, and once more under its new labels when its
 * background mode or validation mode changed; a policy that is gone is "deleted".
 * A policy whose metadata alone changed is not counted.
 */
import { type CompiledPolicy, jsonEqual } from "../../engine/index.js";
import { policyValidationMode } from "./policy-labels.js";

type PolicyChangeType = "created" | "updated" | "deleted";

interface PolicyChange {
  readonly change: PolicyChangeType;
  /** The policy whose labels the change is counted under. */
  readonly policy: CompiledPolicy;
}

/** Policies are the same object when kind, namespace and name match. */
function policyKey(p: CompiledPolicy): string {
  return `${p.kind}/${p.namespace}/${p.name}`;
}

export function diffPolicies(previous: readonly CompiledPolicy[], next: readonly CompiledPolicy[]): PolicyChange[] {
  const before = new Map(previous.map((p) => [policyKey(p), p]));
  const after = new Map(next.map((p) => [policyKey(p), p]));
  const changes: PolicyChange[] = [];
  for (const [key, cur] of after) {
    const old = before.get(key);
    if (old === undefined) {
      changes.push({ change: "created", policy: cur });
      continue;
    }
    if (old === cur || jsonEqual(old.document.spec, cur.document.spec)) continue;
    changes.push({ change: "updated", policy: old });
    if (old.background !== cur.background || policyValidationMode(old) !== policyValidationMode(cur)) {
      changes.push({ change: "updated", policy: cur });
    }
  }
  for (const [key, old] of before) {
    if (!after.has(key)) changes.push({ change: "deleted", policy: old });
  }
  return changes;
}

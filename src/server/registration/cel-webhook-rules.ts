/**
 * The webhook rules of a ValidatingPolicy (and of a MutatingPolicy, on the mutating webhook; of a
 * GeneratingPolicy, on the validating webhook, DELETE added when it synchronizes: a deleted trigger
 * takes its downstream with it) (Kyverno `pkg/controllers/webhook`: a CEL policy's rules
 * come from its `matchConstraints.resourceRules`): each rule's apiGroups × apiVersions × resources
 * with its operations (`*` → all four), for the policy's own constraints and each autogen copy's
 * (pod controllers). An `excludeResourceRules` entry removes operations only where it names the
 * same group, version and resource (or `*`) and no resourceNames: what it cannot remove exactly
 * stays registered and Bylaw decides it per request. namespaceSelector and objectSelector are
 * evaluated by Bylaw, not registered.
 */
import { type CompiledPolicy, policyMatchOf } from "../../engine/index.js";
import { ALL_OPERATIONS, type Operation } from "../../controllers/registration/types.js";
import type { RuleSet } from "./webhook-rules.js";

/**
 * Adds the rules of a CEL policy (its head's matchConstraints, `policyMatchOf`) to `into`; false when
 * it matches by none (or one has no resource rules: JSON mode).
 */
export function addCelPolicyRules(into: RuleSet, policy: CompiledPolicy): boolean {
  const match = policyMatchOf(policy);
  if (match.language !== "cel" || match.constraints.length === 0) return false;
  const extra: readonly Operation[] =
    policy.language === "generating" && policy.generating.synchronize ? ["DELETE"] : [];
  const entries = new Map<string, Set<Operation>>();
  for (const constraints of match.constraints) {
    const rules = constraints.resourceRules;
    if (rules === undefined) return false;
    for (const r of rules.include) {
      for (const g of r.groups)
        for (const v of r.versions)
          for (const res of r.resources) add(entries, [g, v, res].join("|"), [...operationsOf(r.operations), ...extra]);
    }
    for (const r of rules.exclude) {
      if (r.names.length > 0) continue;
      for (const [key, ops] of entries) {
        const [g = "", v = "", res = ""] = key.split("|");
        if (covers(r.groups, g) && covers(r.versions, v) && covers(r.resources, res))
          for (const op of operationsOf(r.operations)) ops.delete(op);
      }
    }
  }
  const scope = policy.namespace !== "" ? "Namespaced" : "*";
  for (const [key, ops] of entries) {
    const [g = "", v = "", res = ""] = key.split("|");
    into.add(g, v, scope, res, ops);
  }
  return true;
}

function operationsOf(ops: readonly string[]): Operation[] {
  return ops.includes("*") ? [...ALL_OPERATIONS] : ALL_OPERATIONS.filter((o) => ops.includes(o));
}

function covers(values: readonly string[], value: string): boolean {
  return values.includes("*") || values.includes(value);
}

function add(entries: Map<string, Set<Operation>>, key: string, ops: readonly Operation[]): void {
  const set = entries.get(key) ?? new Set<Operation>();
  for (const op of ops) set.add(op);
  entries.set(key, set);
}

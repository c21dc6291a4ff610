/**
 * A failing rule's effective action (spec §2.3): rule failureActionOverrides, rule failureAction,
 * spec validationFailureActionOverrides, spec validationFailureAction; default Audit.
 */
import type { FailureAction, FailureActionOverride } from "../../../engine/api/policy.js";
import { wildcardMatch } from "../../../engine/values/wildcard.js";
import type { CompiledPolicy } from "../../../engine/policy/compiled-policy.js";

export function effectiveAction(policy: CompiledPolicy, ruleName: string, namespace: string): "Audit" | "Enforce" {
  const compiled = policy.rules.find((r) => r.name === ruleName);
  const v = compiled?.rule.validate;
  const fromOverrides = (list: readonly FailureActionOverride[] | undefined): FailureAction | undefined =>
    list?.find((o) => (o.namespaces === undefined || o.namespaces.some((p) => wildcardMatch(p, namespace))))?.action;
  const action = fromOverrides(v?.failureActionOverrides) ?? v?.failureAction
    ?? fromOverrides(policy.document.spec.validationFailureActionOverrides) ?? policy.document.spec.validationFailureAction ?? "Audit";
  return action.toLowerCase() === "enforce" ? "Enforce" : "Audit";
}

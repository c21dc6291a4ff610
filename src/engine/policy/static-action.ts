/**
 * The action of a rule when no override can apply (neither the rule nor the spec has any): fixed
 * at compile time, so the webhook does not resolve it per result (pipeline/failure-action.ts).
 * Undefined when overrides exist: those depend on the resource's namespace.
 */
import type { PolicyDocument, Rule } from "../api/policy.js";

export function staticAction(policy: PolicyDocument, rule: Rule): "Audit" | "Enforce" | undefined {
  const v = rule.validate;
  if ((v?.failureActionOverrides?.length ?? 0) > 0 || (policy.spec.validationFailureActionOverrides?.length ?? 0) > 0) return undefined;
  const action = v?.failureAction ?? policy.spec.validationFailureAction ?? "Audit";
  return action.toLowerCase() === "enforce" ? "Enforce" : "Audit";
}

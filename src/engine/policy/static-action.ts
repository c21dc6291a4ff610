/**
 * The action of a rule when no override can apply (neither the rule nor the spec has any): fixed
 * at compile time, so the webhook does not resolve it per result (pipeline/failure-action.ts).
 * Undefined when overrides exist: those depend on the resource's namespace.
 */
import type { FailureAction, PolicyDocument, Rule } from "../api/policy.js";

export function staticAction(policy: PolicyDocument, rule: Rule): "Audit" | "Enforce" | undefined {
  const v = rule.validate;
  if ((v?.failureActionOverrides?.length ?? 0) > 0 || (policy.spec.validationFailureActionOverrides?.length ?? 0) > 0)
    return undefined;
  const action = v?.failureAction ?? verifyImagesAction(rule) ?? policy.spec.validationFailureAction ?? "Audit";
  return action.toLowerCase() === "enforce" ? "Enforce" : "Audit";
}

/**
 * A verifyImages rule's own action (spec §2.3 step 2): Enforce when any entry enforces, Audit when
 * entries set only Audit, undefined when none sets one (the spec's action then applies).
 */
export function verifyImagesAction(rule: Rule): FailureAction | undefined {
  const actions = (rule.verifyImages ?? [])
    .map((e) => e["failureAction"])
    .filter((a): a is string => typeof a === "string");
  if (actions.length === 0) return undefined;
  return actions.some((a) => a.toLowerCase() === "enforce") ? "Enforce" : "Audit";
}

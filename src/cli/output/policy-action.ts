/**
 * A policy's one failure action, as kyverno apply's --audit-warn reads it for a response
 * (Kyverno's EngineResponse.GetValidationFailureAction): the first rule, as written, that names an
 * action (validate.failureAction or failureActionOverrides, a verifyImages entry's failureAction)
 * gives it; else spec.validationFailureActionOverrides and spec.validationFailureAction. A policy of
 * another kind has none, which Kyverno reads as Audit.
 */
import { type CompiledPolicy, effectiveAction, kyvernoRulesOf, policyMatchOf } from "../../engine/index.js";

export function policyAction(
  policy: CompiledPolicy,
  namespace: string,
  namespaceLabels: Readonly<Record<string, string>>,
): "Audit" | "Enforce" {
  if (policyMatchOf(policy).language !== "kyverno") return "Audit";
  const naming = kyvernoRulesOf(policy).find(
    (r) =>
      r.validate?.failureAction !== undefined ||
      r.validate?.failureActionOverrides !== undefined ||
      (r.verifyImages ?? []).some((v) => v["failureAction"] !== undefined),
  );
  // effectiveAction of a name no rule has falls back to the spec's overrides and action.
  return effectiveAction(policy, naming?.name ?? "", namespace, namespaceLabels);
}

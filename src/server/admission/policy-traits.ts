/**
 * What the webhooks need to know about a policy besides its rules: its failurePolicy, which webhook
 * path serves it, whether it applies at admission at all, whether it holds any Enforce action
 * (Kyverno's policy cache "enforce" class, evaluated synchronously) and whether it emits warnings.
 */
import { isObject } from "../../engine/api/json.js";
import type { FailureAction, FailureActionOverride } from "../../engine/api/policy.js";
import type { CompiledPolicy } from "../../engine/policy/compiled-policy.js";
import { verifyImagesAction } from "../../engine/policy/static-action.js";
import type { WebhookMode } from "./types.js";

/** `webhookConfiguration.failurePolicy`, else the deprecated `spec.failurePolicy`, else Fail. */
export function failurePolicyOf(policy: CompiledPolicy): "Fail" | "Ignore" {
  const spec = policy.document.spec;
  const configured = isObject(spec.webhookConfiguration) ? spec.webhookConfiguration["failurePolicy"] : undefined;
  const value = typeof configured === "string" ? configured : spec.failurePolicy;
  return value === "Ignore" ? "Ignore" : "Fail";
}

/** `/validate/fail` serves the Fail policies, `/validate/ignore` the Ignore ones; no mode serves all. */
export function servedBy(policy: CompiledPolicy, mode: WebhookMode | undefined): boolean {
  if (mode === undefined) return true;
  return failurePolicyOf(policy) === (mode === "fail" ? "Fail" : "Ignore");
}

/** `spec.admission: false` keeps a policy out of admission entirely (background only). */
export function appliesAtAdmission(policy: CompiledPolicy): boolean {
  return policy.document.spec.admission !== false;
}

export function emitsWarning(policy: CompiledPolicy): boolean {
  return policy.document.spec.emitWarning === true;
}

/**
 * Any Enforce action anywhere: spec validationFailureAction or one of its overrides, or a validate
 * rule's failureAction or one of its overrides, or a verifyImages entry's failureAction (autogen rules
 * included). Such a policy is evaluated
 * before the request is answered and can block it.
 */
export function hasEnforceAction(policy: CompiledPolicy): boolean {
  const spec = policy.document.spec;
  if (isEnforce(spec.validationFailureAction) || anyEnforce(spec.validationFailureActionOverrides)) return true;
  return policy.rules.some((r) => {
    const v = r.rule.validate;
    // A verifyImages rule enforces when one of its entries does (spec §2.3).
    if (isEnforce(verifyImagesAction(r.rule))) return true;
    return v !== undefined && (isEnforce(v.failureAction) || anyEnforce(v.failureActionOverrides));
  });
}

function isEnforce(action: FailureAction | undefined): boolean {
  return typeof action === "string" && action.toLowerCase() === "enforce";
}

function anyEnforce(overrides: readonly FailureActionOverride[] | undefined): boolean {
  return Array.isArray(overrides) && overrides.some((o) => isEnforce(o.action));
}

/**
 * What the webhooks need to know about a policy besides its rules: its failurePolicy, which webhook
 * path serves it, whether it applies at admission at all, whether it holds any Enforce action
 * (Kyverno's policy cache "enforce" class, evaluated synchronously) and whether it emits warnings.
 */
import {
  compiledAction,
  policySpec,
  type CompiledPolicy,
  type FailureAction,
  type FailureActionOverride,
  isObject,
  verifyImagesAction,
  webhookMatchConditions,
} from "../../engine/index.js";
import { celHasOwnWebhook, celPrefixOf } from "./cel-webhook-traits.js";
import type { WebhookGroup, WebhookSelector } from "./types.js";

/** The webhook timeouts the API server accepts, in seconds. */
export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 30;

/** `webhookConfiguration.failurePolicy`, else `spec.failurePolicy`, else Fail: the policy head's (engine kinds/head.ts). */
export function failurePolicyOf(policy: CompiledPolicy): "Fail" | "Ignore" {
  return policy.failurePolicy;
}

/**
 * Whether a webhook serves a policy. A group (webhook-groups.ts: `/validate/fail`,
 * `/validate/ignore/timeout-20s`, …) serves the policies of its failurePolicy and timeout; a bare
 * mode serves every policy of that failurePolicy; no mode (`/validate`, `/mutate`) serves all.
 */
export function servedBy(policy: CompiledPolicy, webhook: WebhookSelector | undefined): boolean {
  if (webhook === undefined) return true;
  if (typeof webhook === "object") return groupServes(webhook, policy);
  return failurePolicyOf(policy) === (webhook === "fail" ? "Fail" : "Ignore");
}

/** The timeout a policy sets and the field it is written in; undefined when it sets none. */
export function declaredTimeout(
  policy: CompiledPolicy,
): { readonly value: unknown; readonly field: string } | undefined {
  const spec = policySpec(policy);
  const webhook = spec["webhookConfiguration"];
  const configured = isObject(webhook) ? webhook["timeoutSeconds"] : undefined;
  if (configured !== undefined && configured !== null)
    return { value: configured, field: "spec.webhookConfiguration.timeoutSeconds" };
  const legacy = spec["webhookTimeoutSeconds"];
  if (legacy !== undefined && legacy !== null) return { value: legacy, field: "spec.webhookTimeoutSeconds" };
  return undefined;
}

export function isValidTimeout(value: unknown): value is number {
  return (
    typeof value === "number" && Number.isInteger(value) && value >= MIN_TIMEOUT_SECONDS && value <= MAX_TIMEOUT_SECONDS
  );
}

/**
 * Whether a group's path serves a policy (its failurePolicy, and its timeout or no timeout for the
 * default group). A fine-grained path serves its one policy; when fine-grained webhooks are
 * registered, the shared paths leave out the policies that have their own.
 */
function groupServes(group: WebhookGroup, policy: CompiledPolicy): boolean {
  if (failurePolicyOf(policy) !== (group.mode === "fail" ? "Fail" : "Ignore")) return false;
  if (group.policy !== undefined)
    return policyKey(policy, "/") === group.policy && celPrefixOf(policy) === group.prefix;
  if (group.fineGrained === true && hasOwnWebhook(policy)) return false;
  // Registered per namespace (webhook-groups.ts): a namespace's path serves its policies only, the shared path none.
  if (group.fineGrained === true && policy.namespace !== (group.namespace ?? "")) return false;
  const declared = declaredTimeout(policy);
  if (declared === undefined) return group.isDefault;
  return isValidTimeout(declared.value) && declared.value === group.timeoutSeconds;
}

/**
 * Whether a policy gets its own ("fine-grained") webhook when Bylaw registers them: a kyverno.io
 * policy with `webhookConfiguration.matchConditions` (Kyverno `CustomWebhookMatchConditions`), or a
 * policies.kyverno.io policy with matchConditions, `matchPolicy: Exact` or a webhook timeout
 * (cel-webhook-traits.ts).
 */
export function hasOwnWebhook(policy: CompiledPolicy): boolean {
  return webhookMatchConditions(policy).length > 0 || celHasOwnWebhook(policy);
}

/** The policy's key in fine-grained webhook names and paths (Kyverno's): `<namespace><sep><name>`, or `<name>` for a ClusterPolicy. */
export function policyKey(policy: CompiledPolicy, separator: string): string {
  return policy.namespace === "" ? policy.name : `${policy.namespace}${separator}${policy.name}`;
}

/** `spec.admission: false` keeps a policy out of admission entirely (background only). */
export function appliesAtAdmission(policy: CompiledPolicy): boolean {
  return policy.admission;
}

export function emitsWarning(policy: CompiledPolicy): boolean {
  return policy.emitWarning;
}

/**
 * Any Enforce action anywhere: spec validationFailureAction or one of its overrides, or a validate
 * rule's failureAction or one of its overrides, or a verifyImages entry's failureAction (autogen rules
 * included). Such a policy is evaluated
 * before the request is answered and can block it.
 */
export function hasEnforceAction(policy: CompiledPolicy): boolean {
  // The CEL and unsupported kinds decide their action at compile time (compiledAction).
  // An ImageValidatingPolicy has no rules: its validationActions decide (Deny blocks).
  if (policy.language === "image-validating") return policy.validationActions?.includes("Deny") === true;
  if (policy.language !== "kyverno") return compiledAction(policy) === "Enforce";
  const spec = policy.document.spec;
  if (isEnforce(spec.validationFailureAction) || anyEnforce(spec.validationFailureActionOverrides)) return true;
  return policy.rules.some((r) => {
    const v = r.rule.validate;
    // A verifyImages rule enforces when one of its entries does (Kyverno `pkg/engine/api/engineresponse.go` `ruleAction`).
    if (isEnforce(verifyImagesAction(r.rule))) return true;
    return v !== undefined && (isEnforce(v.failureAction) || anyEnforce(v.failureActionOverrides));
  });
}

function isEnforce(action: FailureAction | undefined): boolean {
  return typeof action === "string" && action.toLowerCase() === "enforce";
}

function anyEnforce(overrides: readonly FailureActionOverride[] | undefined): boolean {
  // Array.isArray narrows a readonly array to any[]; the check stays, for policies read unchecked.
  return Array.isArray(overrides) && (overrides as readonly FailureActionOverride[]).some((o) => isEnforce(o.action));
}

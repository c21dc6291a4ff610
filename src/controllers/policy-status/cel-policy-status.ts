/**
 * The `status` of a policies.kyverno.io policy (ValidatingPolicy, MutatingPolicy, …) as Kyverno 1.19
 * writes it (its status controller and `ConditionStatus.SetReadyByCondition`), built without I/O:
 * - `conditionStatus.conditions`: `PolicyCached` (True, reason Succeeded, "Policy compiled and
 *   cached." when Bylaw evaluates the policy; False, reason Failed, with the problems or the reason
 *   Bylaw does not evaluate the kind) and `WebhookConfigured` (True "Webhook configured." when the
 *   policy is served, so its matchConstraints are registered; False "Policy is not configured in
 *   the webhook." otherwise, followed by the API server's refusal when registration found one; absent for a policy with `evaluation.admission.enabled: false`, as
 *   Kyverno leaves it out for background-only policies). `lastTransitionTime` moves only when a condition's status changes (as
 *   meta.SetStatusCondition); conditions of other types are kept. `RBACPermissionsGranted`
 *   (whoever runs background reports may get, list and watch the matched resources;
 *   reporting-access.ts) when it was checked (`reporting`), left out when not (no background scans
 *   run beside this admission controller);
 * - `conditionStatus.ready`: every condition True (Kyverno's rule), which `kubectl get vpol` shows;
 * - `conditionStatus.message`: "" when ready, else the reason (as Kyverno writes compile errors);
 * - `autogen`: the pod-controller copies Kyverno generates from the spec (`{configs: {cronjobs,
 *   defaults: {targets, spec}}}`, `{}` when none; engine `celAutogenStatus`), for the kinds whose CRD
 *   has it (validating, image-validating and mutating, and Namespaced), computed from the stored spec
 *   whether or not the policy is served, as Kyverno does;
 * - `generated`: false (Bylaw generates no ValidatingAdmissionPolicy).
 */
import { celAutogenStatus, isObject, type JsonObject } from "../../engine/index.js";
import { notReadyMessage, type PolicyOutcome, REASON_FAILED, REASON_SUCCEEDED, rfc3339 } from "./policy-status.js";
import type { WebhookState } from "./policy-status-writer.js";
import { reportingMessage } from "./reporting-access.js";

const POLICY_CACHED = "PolicyCached";
const WEBHOOK_CONFIGURED = "WebhookConfigured";
const RBAC_GRANTED = "RBACPermissionsGranted";
const CACHED_MESSAGE = "Policy compiled and cached.";
const WEBHOOK_CONFIGURED_MESSAGE = "Webhook configured.";
const WEBHOOK_NOT_CONFIGURED_MESSAGE = "Policy is not configured in the webhook.";

export function celDesiredStatus(
  outcome: PolicyOutcome,
  nowMs: number,
  webhook?: WebhookState,
  reporting?: readonly string[],
): JsonObject {
  const existing = isObject(outcome.status) ? outcome.status : {};
  const before = isObject(existing["conditionStatus"]) ? existing["conditionStatus"] : {};
  const previous = Array.isArray(before["conditions"]) ? before["conditions"].filter(isObject) : [];
  const served = outcome.compiled !== undefined;
  const evaluated = served && outcome.notEvaluated === undefined;
  const reason = evaluated
    ? ""
    : notReadyMessage(outcome.notEvaluated !== undefined ? [outcome.notEvaluated] : outcome.problems);
  const set = (type: string, ok: boolean, message: string): JsonObject => {
    const status = ok ? "True" : "False";
    const old = previous.find((c) => c["type"] === type);
    const keepTime = old !== undefined && old["status"] === status && typeof old["lastTransitionTime"] === "string";
    return {
      type,
      status,
      reason: ok ? REASON_SUCCEEDED : REASON_FAILED,
      message,
      lastTransitionTime: keepTime ? (old["lastTransitionTime"] as string) : rfc3339(nowMs),
      ...(outcome.generation !== undefined ? { observedGeneration: outcome.generation } : {}),
    };
  };
  // A policy kept out of admission (evaluation.admission.enabled: false) has no webhook to report, as in Kyverno.
  const admission = outcome.compiled?.admission !== false;
  const refused = served && webhook?.registered === false ? webhook.message : undefined;
  const configured = served && refused === undefined;
  const notConfigured =
    refused !== undefined ? `${WEBHOOK_NOT_CONFIGURED_MESSAGE} ${refused}` : WEBHOOK_NOT_CONFIGURED_MESSAGE;
  const ours = [
    set(POLICY_CACHED, evaluated, evaluated ? CACHED_MESSAGE : reason),
    ...(admission
      ? [set(WEBHOOK_CONFIGURED, configured, configured ? WEBHOOK_CONFIGURED_MESSAGE : notConfigured)]
      : []),
    ...(reporting !== undefined ? [set(RBAC_GRANTED, reporting.length === 0, reportingMessage(reporting))] : []),
  ];
  const mine = [POLICY_CACHED, WEBHOOK_CONFIGURED, RBAC_GRANTED];
  const others = previous.filter((c) => typeof c["type"] !== "string" || !mine.includes(c["type"]));
  const conditions = [...others, ...ours];
  const ready = conditions.every((c) => c["status"] === "True");
  const unreported = reporting !== undefined && reporting.length > 0 ? reportingMessage(reporting) : "";
  const message = ready ? "" : reason !== "" ? reason : refused !== undefined ? notReadyMessage([refused]) : unreported;
  const autogen = celAutogenStatus(outcome.kind, outcome.spec);
  return {
    ...(autogen !== undefined ? { autogen } : {}),
    conditionStatus: { ready, conditions, message },
    generated: false,
  };
}

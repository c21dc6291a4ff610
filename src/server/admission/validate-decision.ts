/**
 * How a validate review is decided once its phases are evaluated (Kyverno's
 * `HandleValidationEnforce`), the same whether it was evaluated in its batch or finished off it:
 * blocked by an Enforce failure or an error under failurePolicy Fail, denied when the deadline left
 * Fail policies out, else allowed with the warnings of both groups and one per Audit rule that errored.
 */
import { effectiveAction, type PolicyResponse } from "../../engine/index.js";
import type { AdmissionDeps } from "./deps.js";
import { deadlineDenial } from "./deadline.js";
import { denialMessage } from "./denial-message.js";
import type { BatchReview, Evaluation } from "./evaluate-batch.js";
import { celDenials, isCelPolicy } from "./cel-policy-answer.js";
import { failurePolicyOf } from "./policy-traits.js";
import { outcomeOf, recordOutcome, recordReviewed } from "./record.js";
import { allowed, denied } from "./response.js";
import type { HandlerResult } from "./types.js";
import { warningMessages } from "./warnings.js";
import { auditErrorWarnings } from "./audit-error-warnings.js";

/** A denial (Enforce failure, or the deadline with Fail policies left out), or undefined when the review is allowed so far. */
export function decide(
  review: BatchReview,
  enforced: Evaluation,
  warned: Evaluation,
  deps: AdmissionDeps,
): HandlerResult | undefined {
  const { request, subject } = review;
  const classic = enforced.responses.filter((r) => !isCelPolicy(r.policy));
  const cel = celDenials(enforced.responses);
  if (cel.length > 0 || blocks(classic, review)) {
    // Kyverno answers the two kinds on separate webhooks; one review here carries both texts.
    const parts = blocks(classic, review) ? [denialMessage(subject.objectId, classic, deps.denialYaml)] : [];
    if (cel.length > 0) parts.push(cel.join("; "));
    recordReviewed(deps, subject, enforced.responses, true);
    return finish(
      review,
      deps,
      false,
      { status: 200, body: denied(request.uid, parts.join("\n\n")) },
      { warnings: 0, results: enforced.responses },
    );
  }
  const late = deadlineDenial(deps.deadlineSeconds, [...enforced.left, ...warned.left]);
  if (late !== undefined)
    return finish(
      review,
      deps,
      false,
      { status: 200, body: denied(request.uid, late) },
      { warnings: 0, results: enforced.responses },
    );
  return undefined;
}

export function allow(
  review: BatchReview,
  enforced: readonly PolicyResponse[],
  warned: readonly PolicyResponse[],
  audited: readonly PolicyResponse[],
  deps: AdmissionDeps,
): HandlerResult {
  // Most reviews see one phase's policies: its list is used as it is rather than copied.
  const warnings = warningMessages(warned.length === 0 ? enforced : [...enforced, ...warned]);
  const auditResults = warned.length === 0 && audited.length === 0 ? enforced : [...enforced, ...warned, ...audited];
  // An Audit rule that errored admits: say so (audit-error-warnings.ts), whichever phase evaluated it.
  const subject = review.subject;
  warnings.push(
    ...auditErrorWarnings(auditResults, {
      namespace: subject.objectId.namespace,
      namespaceLabels: subject.engineRequest.namespaceLabels,
    }),
  );
  recordReviewed(deps, subject, auditResults, false);
  return finish(
    review,
    deps,
    true,
    { status: 200, body: allowed(review.request.uid, warnings), auditResults },
    { warnings: warnings.length, results: auditResults },
  );
}

function finish(
  review: BatchReview,
  deps: AdmissionDeps,
  allow: boolean,
  answer: HandlerResult & { status: 200 },
  decided: { readonly warnings: number; readonly results: readonly PolicyResponse[] },
): HandlerResult {
  recordOutcome(
    deps,
    outcomeOf(review.request, review.subject, "validate", {
      allowed: allow,
      durationSeconds: review.deadline.elapsed(),
      warnings: decided.warnings,
    }),
    decided.results,
  );
  return answer;
}

/** Kyverno's BlockRequest: an Enforce failure, or an error in a policy whose failurePolicy is Fail. */
function blocks(responses: readonly PolicyResponse[], review: BatchReview): boolean {
  for (const response of responses) {
    for (const r of response.rules) {
      if (
        r.status === "fail" &&
        effectiveAction(
          response.policy,
          r.rule,
          review.subject.objectId.namespace,
          review.subject.engineRequest.namespaceLabels,
        ) === "Enforce"
      )
        return true;
      if (r.status === "error" && failurePolicyOf(response.policy) === "Fail") return true;
    }
  }
  return false;
}

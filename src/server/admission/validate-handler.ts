/**
 * The validating webhook (`/validate[/fail|/ignore]`, spec §8.1 step 2, §8.3), as Kyverno's
 * `HandleValidationEnforce`:
 * 1. Policies holding any Enforce action are evaluated, then Audit policies with emitWarning.
 * 2. The request is blocked when one of the Enforce-class policies has a failing rule whose effective
 *    action is Enforce, or an error under failurePolicy Fail. The denial names every non-pass,
 *    non-skip rule of those policies, and carries no warnings.
 * 3. Otherwise it is allowed, with the warnings of both groups. The remaining Audit-only policies
 *    (Kyverno evaluates them after answering, for reports) are evaluated last; their results go
 *    to the recorder and to `auditResults`, and can never block.
 * Only the policies of the webhook's failurePolicy are served (`fail`/`ignore`); no mode serves all.
 *
 * Reviews that arrive together are handled as one batch (`handleValidateBatch`): each phase runs
 * policy by policy over the batch (evaluate-batch.ts). Every review gets the answer it would get
 * alone; `handleValidate` is the batch of one.
 */
import { effectiveAction } from "../../engine/pipeline/failure-action.js";
import type { PolicyResponse } from "../../engine/pipeline/types.js";
import type { AdmissionDeps } from "../types.js";
import { buildRequest, exceptionsOf, type RequestExceptions } from "./build-request.js";
import { deadlineDenial, startDeadline } from "./deadline.js";
import { denialMessage } from "./denial-message.js";
import { evaluateBatch, type BatchReview, type Evaluation } from "./evaluate-batch.js";
import { internalError } from "./guard.js";
import { parseReview } from "./parse-review.js";
import { failurePolicyOf } from "./policy-traits.js";
import { validatePlanOf, type ValidatePlan } from "./plans.js";
import { outcomeOf, recordOutcome } from "./record.js";
import { allowed, badRequest, denied } from "./response.js";
import type { AdmissionRequestJson, HandlerResult, WebhookSelector } from "./types.js";
import { warningMessages } from "./warnings.js";

export function handleValidate(body: unknown, deps: AdmissionDeps, webhook?: WebhookSelector): HandlerResult {
  return handleValidateBatch([body], deps, webhook)[0] as HandlerResult;
}

/**
 * One answer per body, in order. A bad body gets a 400; an unexpected failure answers the reviews
 * it touched per the webhook's mode (guard.ts), and never another review's answer.
 */
export function handleValidateBatch(bodies: readonly unknown[], deps: AdmissionDeps, webhook?: WebhookSelector): HandlerResult[] {
  const answers = new Array<HandlerResult>(bodies.length);
  const requests: { readonly request: AdmissionRequestJson; readonly at: number }[] = [];
  bodies.forEach((body, at) => {
    const parsed = parseReview(body);
    if (parsed.ok) requests.push({ request: parsed.request, at });
    else answers[at] = badRequest(parsed.error);
  });
  const failed = (request: AdmissionRequestJson, at: number, e: unknown): void => {
    answers[at] = internalError(request, deps, "validate", webhook, e);
  };
  let plan: ValidatePlan;
  let exceptions: RequestExceptions | undefined;
  try {
    plan = validatePlanOf(deps, webhook);
    exceptions = exceptionsOf(deps);
  } catch (e) {
    for (const { request, at } of requests) failed(request, at, e);
    return answers;
  }

  const reviews: BatchReview[] = [];
  const reviewAt: number[] = [];
  for (const { request, at } of requests) {
    try {
      const deadline = startDeadline(deps);
      reviews.push({ request, deadline, subject: buildRequest(request, deps.cluster, plan.policies, exceptions) });
      reviewAt.push(at);
    } catch (e) {
      failed(request, at, e);
    }
  }

  const enforced = phase(plan.enforceClass, reviews, reviewAt, deps, failed);
  const warned = enforced && phase(plan.auditWarn, reviews, reviewAt, deps, failed);
  if (enforced === undefined || warned === undefined) return answers;
  /** Reviews allowed so far: the Audit-only policies still run for them. */
  const open: number[] = [];
  reviews.forEach((review, r) => {
    const at = reviewAt[r] as number;
    try {
      const denial = decide(review, enforced[r] as Evaluation, warned[r] as Evaluation, deps);
      if (denial !== undefined) answers[at] = denial;
      else open.push(r);
    } catch (e) {
      failed(review.request, at, e);
    }
  });

  const audited = phase(plan.auditOnly, open.map((r) => reviews[r] as BatchReview), open.map((r) => reviewAt[r] as number), deps, failed);
  if (audited === undefined) return answers;
  open.forEach((r, k) => {
    const review = reviews[r] as BatchReview;
    const at = reviewAt[r] as number;
    try {
      answers[at] = allow(review, (enforced[r] as Evaluation).responses, (warned[r] as Evaluation).responses, (audited[k] as Evaluation).responses, deps);
    } catch (e) {
      failed(review.request, at, e);
    }
  });
  return answers;
}

/** One evaluation phase; if it fails unexpectedly, its reviews are answered as failed and undefined is returned. */
function phase(
  policies: ValidatePlan["enforceClass"],
  reviews: readonly BatchReview[],
  reviewAt: readonly number[],
  deps: AdmissionDeps,
  failed: (request: AdmissionRequestJson, at: number, e: unknown) => void,
): Evaluation[] | undefined {
  try {
    return evaluateBatch(policies, reviews, deps);
  } catch (e) {
    reviews.forEach((review, r) => failed(review.request, reviewAt[r] as number, e));
    return undefined;
  }
}

/** A denial (Enforce failure, or the deadline with Fail policies left out), or undefined when the review is allowed so far. */
function decide(review: BatchReview, enforced: Evaluation, warned: Evaluation, deps: AdmissionDeps): HandlerResult | undefined {
  const { request, subject } = review;
  if (blocks(enforced.responses, review)) {
    const message = denialMessage(subject.objectId, enforced.responses);
    return finish(review, deps, false, { status: 200, body: denied(request.uid, message) }, 0);
  }
  const late = deadlineDenial(deps.deadlineSeconds, [...enforced.left, ...warned.left]);
  if (late !== undefined) return finish(review, deps, false, { status: 200, body: denied(request.uid, late) }, 0);
  return undefined;
}

function allow(review: BatchReview, enforced: readonly PolicyResponse[], warned: readonly PolicyResponse[], audited: readonly PolicyResponse[], deps: AdmissionDeps): HandlerResult {
  // Most reviews see one phase's policies: its list is used as it is rather than copied.
  const warnings = warningMessages(warned.length === 0 ? enforced : [...enforced, ...warned]);
  const auditResults = warned.length === 0 && audited.length === 0 ? enforced : [...enforced, ...warned, ...audited];
  return finish(review, deps, true, { status: 200, body: allowed(review.request.uid, warnings), auditResults }, warnings.length);
}

function finish(review: BatchReview, deps: AdmissionDeps, allow: boolean, answer: HandlerResult & { status: 200 }, warnings: number): HandlerResult {
  recordOutcome(deps, outcomeOf(review.request, review.subject, "validate", { allowed: allow, durationSeconds: review.deadline.elapsed(), warnings }));
  return answer;
}

/** Kyverno's BlockRequest: an Enforce failure, or an error in a policy whose failurePolicy is Fail. */
function blocks(responses: readonly PolicyResponse[], review: BatchReview): boolean {
  for (const response of responses) {
    for (const r of response.rules) {
      if (r.status === "fail" && effectiveAction(response.policy, r.rule, review.subject.objectId.namespace, review.subject.engineRequest.namespaceLabels) === "Enforce") return true;
      if (r.status === "error" && failurePolicyOf(response.policy) === "Fail") return true;
    }
  }
  return false;
}

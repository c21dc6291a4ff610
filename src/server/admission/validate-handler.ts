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
 * alone. In a batch each review has a slice of inline work (deadline.ts): a review past it leaves
 * the batch and is answered later, off the batch (continue-review.ts), so its cost never spends the
 * others' deadlines; its answer is then a promise. `handleValidate` is one review alone, evaluated
 * inline to its deadline, and always answers at once.
 */
import type { PolicySnapshot } from "../types.js";
import type { AdmissionDeps } from "./deps.js";
import { buildRequest, exceptionsOf, type RequestExceptions } from "./build-request.js";
import { continueReview, type Continuation, type Stage } from "./continue-review.js";
import { DEFAULT_INLINE_CHECKS, ReviewInterruption, startDeadline } from "./deadline.js";
import { evaluateBatch, type BatchReview, type Evaluation } from "./evaluate-batch.js";
import { internalError } from "./guard.js";
import { parseReview } from "./parse-review.js";
import { evaluateWithCalls, planMakesCalls } from "./review-calls-loop.js";
import { validatePlanOf, type ValidatePlan } from "./plans.js";
import { badRequest } from "./response.js";
import type { AdmissionRequestJson, HandlerResult, WebhookSelector } from "./types.js";
import { allow, decide } from "./validate-decision.js";

/** An answer now, or later for a review that left its batch. */
type Answer = HandlerResult | Promise<HandlerResult>;

/** One review alone: evaluated inline up to its deadline, answered at once. */
export function handleValidate(body: unknown, deps: AdmissionDeps, webhook?: WebhookSelector): HandlerResult {
  return validateBatch([body], deps, webhook, Number.POSITIVE_INFINITY)[0] as HandlerResult;
}

/**
 * One answer per body, in order. A bad body gets a 400; an unexpected failure answers the reviews
 * it touched per the webhook's mode (guard.ts), and never another review's answer. A review past its
 * slice of inline work is answered by a promise (it finishes off the batch).
 */
export function handleValidateBatch(
  bodies: readonly unknown[],
  deps: AdmissionDeps,
  webhook?: WebhookSelector,
): Answer[] {
  const inline = deps.inlineChecks ?? DEFAULT_INLINE_CHECKS;
  const port = deps.calls;
  // Policies that make network calls: each review alone, in passes (review-calls-loop.ts).
  if (port !== undefined && planMakesCalls(port, planPolicies(deps, webhook))) {
    return bodies.map((body) =>
      evaluateWithCalls(port, deps, (d) => validateBatch([body], d, webhook, inline)[0] as Answer).catch(
        (e: unknown) => {
          const parsed = parseReview(body);
          return parsed.ok ? internalError(parsed.request, deps, "validate", webhook, e) : badRequest(parsed.error);
        },
      ),
    );
  }
  return validateBatch(bodies, deps, webhook, inline);
}

/** The webhook's policies, or none when no set is loaded (the batch path then answers the failure). */
function planPolicies(deps: AdmissionDeps, webhook: WebhookSelector | undefined): ValidatePlan["policies"] {
  try {
    return validatePlanOf(deps, webhook).policies;
  } catch {
    return [];
  }
}

/** A review of the batch, where its answer goes, and its phases so far. */
interface Item {
  readonly review: BatchReview;
  readonly at: number;
  enforced?: Evaluation;
  warned?: Evaluation;
}

function validateBatch(
  bodies: readonly unknown[],
  deps: AdmissionDeps,
  webhook: WebhookSelector | undefined,
  inlineChecks: number,
): Answer[] {
  const answers = new Array<Answer>(bodies.length);
  const requests: { readonly request: AdmissionRequestJson; readonly at: number }[] = [];
  bodies.forEach((body, at) => {
    const parsed = parseReview(body);
    if (parsed.ok) requests.push({ request: parsed.request, at });
    else answers[at] = badRequest(parsed.error);
  });
  const failed = (request: AdmissionRequestJson, at: number, e: unknown): void => {
    answers[at] = internalError(request, deps, "validate", webhook, e);
  };
  let snapshot: PolicySnapshot;
  let plan: ValidatePlan;
  let exceptions: RequestExceptions | undefined;
  try {
    snapshot = deps.policies();
    plan = validatePlanOf(deps, webhook);
    exceptions = exceptionsOf(deps);
  } catch (e) {
    for (const { request, at } of requests) failed(request, at, e);
    return answers;
  }
  const continuation: Continuation = { plan, snapshot, deps, webhook };
  /** A review past its slice: answered off the batch from where it stopped. */
  const leave = (item: Item, stage: Stage): void => {
    answers[item.at] = continueReview(item.review, stage, continuation);
  };

  let items: Item[] = [];
  for (const { request, at } of requests) {
    try {
      const deadline = startDeadline(deps);
      const interruption = new ReviewInterruption(deps.now, deadline.at, inlineChecks);
      const subject = buildRequest(request, deps.cluster, plan.policies, exceptions);
      items.push({
        review: { request, deadline, interruption, subject, prepared: deps.engine.prepare(subject.engineRequest) },
        at,
      });
    } catch (e) {
      failed(request, at, e);
    }
  }

  const enforced = phase(plan.indexes.enforceClass, items, deps, failed);
  if (enforced === undefined) return answers;
  let sliced = false;
  items.forEach((item, k) => {
    item.enforced = enforced[k] as Evaluation;
    if (item.enforced.stopped === "slice") sliced = true;
  });
  if (sliced) {
    items = items.filter((item) => {
      if (item.enforced?.stopped !== "slice") return true;
      leave(item, { phase: "enforce", enforced: item.enforced });
      return false;
    });
  }
  const warned = phase(plan.indexes.auditWarn, items, deps, failed);
  if (warned === undefined) return answers;
  /** Reviews allowed so far: the Audit-only policies still run for them. */
  const open: Item[] = [];
  items.forEach((item, k) => {
    const w = warned[k] as Evaluation;
    if (w.stopped === "slice") return leave(item, { phase: "warn", enforced: item.enforced as Evaluation, warned: w });
    item.warned = w;
    try {
      const denial = decide(item.review, item.enforced as Evaluation, w, deps);
      if (denial !== undefined) answers[item.at] = denial;
      else open.push(item);
    } catch (e) {
      failed(item.review.request, item.at, e);
    }
  });

  const audited = phase(plan.indexes.auditOnly, open, deps, failed);
  if (audited === undefined) return answers;
  open.forEach((item, k) => {
    const enforcedHere = item.enforced as Evaluation;
    const warnedHere = item.warned as Evaluation;
    const a = audited[k] as Evaluation;
    if (a.stopped === "slice")
      return leave(item, { phase: "audit", enforced: enforcedHere, warned: warnedHere, audited: a });
    try {
      answers[item.at] = allow(item.review, enforcedHere.responses, warnedHere.responses, a.responses, deps);
    } catch (e) {
      failed(item.review.request, item.at, e);
    }
  });
  return answers;
}

/** One evaluation phase; if it fails unexpectedly, its reviews are answered as failed and undefined is returned. */
function phase(
  index: ValidatePlan["indexes"]["enforceClass"],
  items: readonly Item[],
  deps: AdmissionDeps,
  failed: (request: AdmissionRequestJson, at: number, e: unknown) => void,
): Evaluation[] | undefined {
  try {
    return evaluateBatch(
      index.policies,
      items.map((item) => item.review),
      deps,
      deps.indexCandidates === false ? undefined : index,
    );
  } catch (e) {
    for (const item of items) failed(item.review.request, item.at, e);
    return undefined;
  }
}

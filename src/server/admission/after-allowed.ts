/**
 * Work after the answer: a validate route wrapped so that, once a review is answered allowed, its
 * generate work (generate-work.ts) and mutate-existing work (mutate-existing-work.ts) go to
 * `deps.onGenerateWork` and its policy results (the answer's `auditResults`) to
 * `deps.onAdmissionResults`, on a later turn of the event loop. The answer is never delayed, and a
 * failure here never changes it.
 */
import type { BatchRouteHandler, HandlerResult, RouteHandler } from "../http/types.js";
import type { AdmissionDeps } from "./deps.js";
import { generateWorkFor } from "./generate-work.js";
import { mutateExistingWorkFor } from "./mutate-existing-work.js";
import { parseReview } from "./parse-review.js";
import type { HandlerResult as AdmissionResult, WebhookSelector } from "./types.js";

type Answer = HandlerResult | PromiseLike<HandlerResult>;

function afterAnswer(answer: Answer, body: unknown, deps: AdmissionDeps, webhook?: WebhookSelector): void {
  const sink = deps.onGenerateWork;
  const results = deps.onAdmissionResults;
  if (sink === undefined && results === undefined) return;
  void Promise.resolve(answer).then((result: HandlerResult) => {
    const review = result.body as { response?: { allowed?: unknown } } | undefined;
    if (result.status !== 200 || review?.response?.allowed !== true) return;
    if (results !== undefined) setImmediate(() => reportResults(body, result as AdmissionResult, results));
    if (sink === undefined) return;
    setImmediate(() => {
      try {
        const work = [...generateWorkFor(body, deps, webhook), ...mutateExistingWorkFor(body, deps, webhook)];
        if (work.length > 0) sink(work);
      } catch {
        // No policy set loaded, or a body the handler already answered: there is no work to store.
      }
    });
  });
}

/**
 * The results of an allowed review that lands in its resource's report: the object as admitted on
 * CREATE or UPDATE, not a subresource, not a dry run (Kyverno reports none of those).
 */
function reportResults(
  body: unknown,
  result: AdmissionResult,
  sink: NonNullable<AdmissionDeps["onAdmissionResults"]>,
): void {
  const responses = result.status === 200 ? result.auditResults : undefined;
  if (responses === undefined || responses.length === 0) return;
  const parsed = parseReview(body);
  if (!parsed.ok) return;
  const r = parsed.request;
  if (r.dryRun === true || (r.subResource ?? "") !== "") return;
  if ((r.operation !== "CREATE" && r.operation !== "UPDATE") || r.object === undefined || r.object === null) return;
  try {
    sink(r.object, responses);
  } catch {
    // Reports are best effort: the answer is given.
  }
}

export function withGenerateWork(handler: RouteHandler, deps: AdmissionDeps, webhook?: WebhookSelector): RouteHandler {
  if (deps.onGenerateWork === undefined && deps.onAdmissionResults === undefined) return handler;
  return (body) => {
    const answer = handler(body);
    afterAnswer(answer, body, deps, webhook);
    return answer;
  };
}

export function withGenerateWorkBatch(
  handler: BatchRouteHandler,
  deps: AdmissionDeps,
  webhook?: WebhookSelector,
): BatchRouteHandler {
  if (deps.onGenerateWork === undefined && deps.onAdmissionResults === undefined) return handler;
  return (bodies) => {
    const answers = handler(bodies);
    answers.forEach((answer, i) => afterAnswer(answer, bodies[i], deps, webhook));
    return answers;
  };
}

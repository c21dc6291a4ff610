/**
 * The common frame of every handler: check the review (400 on a bad one), run the handler, and turn
 * anything unexpected into an answer instead of an exception. An unexpected failure denies, unless
 * the request came through an `ignore` webhook, which then allows with a warning.
 */
import type { AdmissionOutcome } from "../types.js";
import type { AdmissionDeps } from "./deps.js";
import { parseReview } from "./parse-review.js";
import { outcomeOf, recordOutcome } from "./record.js";
import { allowed, badRequest, denied } from "./response.js";
import { modeOf, type AdmissionRequestJson, type HandlerResult, type WebhookSelector } from "./types.js";

export function guarded(
  body: unknown,
  deps: AdmissionDeps,
  webhook: AdmissionOutcome["webhook"],
  mode: WebhookSelector | undefined,
  handle: (request: AdmissionRequestJson) => HandlerResult,
): HandlerResult {
  const parsed = parseReview(body);
  if (!parsed.ok) return badRequest(parsed.error);
  const request = parsed.request;
  try {
    return handle(request);
  } catch (e) {
    return internalError(request, deps, webhook, mode, e);
  }
}

/** The answer to a review whose handling failed unexpectedly: denied, or allowed with a warning through an `ignore` webhook. */
export function internalError(
  request: AdmissionRequestJson,
  deps: AdmissionDeps,
  webhook: AdmissionOutcome["webhook"],
  mode: WebhookSelector | undefined,
  e: unknown,
): HandlerResult {
  const reason = e instanceof Error ? e.message : String(e);
  // A fact still loading (ClusterFacts.roles) is not a bug: say so, and what is awaited.
  const notReady = e instanceof Error && e.name === "NotReady";
  const message = notReady
    ? `bylaw: not ready to decide the ${webhook} request: ${reason}`
    : `bylaw: internal error while handling the ${webhook} request: ${reason}`;
  const allow = modeOf(mode) === "ignore";
  recordOutcome(
    deps,
    outcomeOf(request, undefined, webhook, { allowed: allow, durationSeconds: 0, warnings: allow ? 1 : 0 }),
  );
  return { status: 200, body: allow ? allowed(request.uid, [message]) : denied(request.uid, message) };
}

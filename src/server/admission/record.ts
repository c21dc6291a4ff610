/**
 * Reporting to the recorder (metrics and logs): one AdmissionOutcome per review, and each policy's
 * rule results. A policy's measured time is shared evenly among its rule results. A recorder that
 * throws never changes the admission answer.
 */
import type { PolicyResponse } from "../../engine/index.js";
import type { AdmissionOutcome, ResultRuleType } from "../types.js";
import type { AdmissionDeps } from "./deps.js";
import type { AdmissionSubject } from "./build-request.js";
import type { AdmissionRequestJson } from "./types.js";

/** A policy's rule results for a review (the subject carries the review's labels); none: nothing recorded. */
export function recordRules(
  deps: AdmissionDeps,
  subject: AdmissionSubject,
  response: PolicyResponse,
  ruleType: ResultRuleType,
  durationSeconds: number,
): void {
  const n = response.rules.length;
  if (n === 0) return;
  // No closure for `safely`: this runs once per policy and review.
  try {
    deps.recorder.policyResults(subject, response, ruleType, (durationSeconds > 0 ? durationSeconds : 0) / n);
  } catch {
    // metrics and logs are best effort
  }
}

/** One review's outcome, with the rule results it was decided from when there are any. */
export function recordOutcome(
  deps: AdmissionDeps,
  outcome: AdmissionOutcome,
  results?: readonly PolicyResponse[],
): void {
  safely(() =>
    results === undefined || results.length === 0
      ? deps.recorder.admission(outcome)
      : deps.recorder.admission(outcome, results),
  );
}

type Decision = Pick<AdmissionOutcome, "allowed" | "durationSeconds" | "warnings"> & { readonly patchOps?: number };

/** The outcome of one review: the fields every webhook fills the same way, and its decision. */
export function outcomeOf(
  request: AdmissionRequestJson,
  subject: Pick<AdmissionSubject, "kind" | "namespace" | "name" | "dryRun"> | undefined,
  webhook: AdmissionOutcome["webhook"],
  decision: Decision,
): AdmissionOutcome {
  // One literal (no spread of a built object): this runs once per review.
  const base = {
    uid: request.uid,
    webhook,
    kind: subject?.kind ?? request.kind.kind,
    namespace: subject?.namespace ?? request.namespace ?? "",
    name: subject?.name ?? request.name ?? "",
    operation: request.operation,
    dryRun: subject?.dryRun ?? request.dryRun === true,
    allowed: decision.allowed,
    durationSeconds: decision.durationSeconds,
    warnings: decision.warnings,
  };
  return decision.patchOps === undefined ? base : { ...base, patchOps: decision.patchOps };
}

function safely(f: () => void): void {
  try {
    f();
  } catch {
    // metrics and logs are best effort
  }
}

/** A decided review's responses to `deps.onReviewed` (Events); nothing for a dry run, which must have no side effects. */
export function recordReviewed(
  deps: AdmissionDeps,
  subject: Pick<AdmissionSubject, "object" | "dryRun">,
  responses: readonly PolicyResponse[],
  blocked: boolean,
): void {
  const sink = deps.onReviewed;
  if (sink === undefined || subject.dryRun || responses.length === 0) return;
  safely(() => sink({ object: subject.object, responses, blocked }));
}

/**
 * A validate review that ran past its slice of inline work leaves its batch (the batch goes on
 * without it) and finishes here: its remaining policies run through `deps.runner` (a worker of the
 * pool, or this thread once the batch is answered) under the review's own deadline, phase by phase,
 * and it is decided, recorded and answered exactly as in the batch (validate-decision.ts). The
 * policies the deadline leaves answer by their failurePolicy.
 */
import type { CompiledPolicy, PolicyResponse } from "../../engine/index.js";
import type { PolicySnapshot } from "../types.js";
import type { AdmissionDeps } from "./deps.js";
import { deferredRunner, type ReviewRunner } from "./review-runner.js";
import type { BatchReview, Evaluation } from "./evaluate-batch.js";
import { internalError } from "./guard.js";
import type { ValidatePlan } from "./plans.js";
import { recordRules } from "./record.js";
import type { HandlerResult, WebhookSelector } from "./types.js";
import { allow, decide } from "./validate-decision.js";

/** Where a review left its batch: the phase it was in, and what its phases gave so far (`left`: still to run). */
export type Stage =
  | { readonly phase: "enforce"; readonly enforced: Evaluation }
  | { readonly phase: "warn"; readonly enforced: Evaluation; readonly warned: Evaluation }
  | {
      readonly phase: "audit";
      readonly enforced: Evaluation;
      readonly warned: Evaluation;
      readonly audited: Evaluation;
    };

export interface Continuation {
  readonly plan: ValidatePlan;
  readonly snapshot: PolicySnapshot;
  readonly deps: AdmissionDeps;
  readonly webhook: WebhookSelector | undefined;
}

/** Finishes a review off its batch; never rejects (an unexpected failure is answered as in the batch). */
export function continueReview(review: BatchReview, stage: Stage, c: Continuation): Promise<HandlerResult> {
  return finishOffBatch(review, stage, c).catch((e: unknown) =>
    internalError(review.request, c.deps, "validate", c.webhook, e),
  );
}

async function finishOffBatch(review: BatchReview, stage: Stage, c: Continuation): Promise<HandlerResult> {
  const { plan, deps } = c;
  const runner = deps.runner ?? deferredRunner(deps);
  const run = (policies: readonly CompiledPolicy[], have: readonly PolicyResponse[]): Promise<Evaluation> =>
    runPhase(runner, review, policies, have, c);
  const enforced =
    stage.phase === "enforce" ? await run(stage.enforced.left, stage.enforced.responses) : stage.enforced;
  let warned: Evaluation;
  if (stage.phase === "enforce")
    warned = enforced.left.length > 0 ? { responses: [], left: plan.auditWarn } : await run(plan.auditWarn, []);
  else if (stage.phase === "warn") warned = await run(stage.warned.left, stage.warned.responses);
  else warned = stage.warned;
  const denial = decide(review, enforced, warned, deps);
  if (denial !== undefined) return denial;
  // Audit-only policies cannot block; as in the batch, what the deadline leaves of them is not reported.
  const audited =
    stage.phase === "audit" ? await run(stage.audited.left, stage.audited.responses) : await run(plan.auditOnly, []);
  return allow(review, enforced.responses, warned.responses, audited.responses, deps);
}

/** Runs `policies` for the review and records each finished one, as the batch records its policies. */
async function runPhase(
  runner: ReviewRunner,
  review: BatchReview,
  policies: readonly CompiledPolicy[],
  have: readonly PolicyResponse[],
  c: Continuation,
): Promise<Evaluation> {
  if (policies.length === 0) return { responses: have, left: [] };
  const { subject, deadline } = review;
  const unknownNamespace = subject.unknownNamespace;
  const outcome = await runner.run({
    snapshot: c.snapshot,
    policies,
    request: subject.engineRequest,
    object: subject.object,
    deadlineAt: deadline.at,
    ...(unknownNamespace !== undefined ? { unknownNamespace } : {}),
  });
  const responses = [...have];
  for (const { response, seconds } of outcome.done) {
    if (response.rules.length === 0) continue;
    responses.push(response);
    recordRules(c.deps, subject, response, "validate", seconds);
  }
  return { responses, left: outcome.left };
}

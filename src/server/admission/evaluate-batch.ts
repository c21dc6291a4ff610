/**
 * Validate policies over the reviews of one batch, policy by policy: each policy runs against every
 * review before the next policy starts, so one policy's compiled code and data stay in the CPU
 * caches across the batch (measured in-process: 10–15% less time per review than review by review).
 * The answers are the same as evaluating each review alone: every review gets its own responses,
 * per-policy durations, deadline and recorded results.
 *
 * Each evaluation runs under the review's ReviewInterruption (deadline.ts). A review stopped inside a
 * policy leaves the batch at that policy: nothing of the stopped policy is kept or recorded, and the
 * policies from it on are its `left`, with the reason (`slice`: it goes on off the batch;
 * `deadline`: they answer by their failurePolicy). The other reviews of the batch go on.
 */
import {
  type CandidateIndex,
  type CompiledPolicy,
  isInterruption,
  type PolicyResponse,
  type PreparedRequest,
} from "../../engine/index.js";
import type { AdmissionDeps } from "./deps.js";
import type { AdmissionSubject } from "./build-request.js";
import { evaluationError, type Deadline, type ReviewInterruption, type StopReason } from "./deadline.js";
import { withNamespaceFacts } from "./namespace-facts.js";
import { recordRules } from "./record.js";
import type { AdmissionRequestJson } from "./types.js";

/** One review of a batch and what its evaluation phases gave. */
export interface BatchReview {
  readonly request: AdmissionRequestJson;
  readonly subject: AdmissionSubject;
  /** The subject's engine request, prepared once for every policy of every phase. */
  readonly prepared: PreparedRequest;
  readonly deadline: Deadline;
  /** Handed to the engine with every policy of the review: its slice and deadline. */
  readonly interruption: ReviewInterruption;
}

export interface Evaluation {
  readonly responses: readonly PolicyResponse[];
  /** Policies the deadline kept from running (or finishing) for this review. */
  readonly left: readonly CompiledPolicy[];
  /** Why the evaluation stopped inside `left[0]`; undefined when it was stopped between policies or not at all. */
  readonly stopped?: StopReason;
}

/**
 * Runs `policies` over `reviews` and returns one Evaluation per review, in order. The clock is read
 * once per policy: a policy's time over the batch is shared evenly among the reviews it ran on, so
 * each policy's total in the duration metric is exact, and each observation is that policy's mean
 * over the batch (at most a few reviews). A review whose deadline has passed starts no further policy.
 *
 * With the `index` of `policies`, a policy none of whose rules can match a review is not run for it:
 * it would have given no rule results, which are neither kept nor recorded; in a namespace the
 * cluster facts do not know too, as a policy the index rules out needs none of its labels (engine
 * `namespaceLabelsNeeded`; namespace-facts.ts answers for the rules that do).
 */
export function evaluateBatch(
  policies: readonly CompiledPolicy[],
  reviews: readonly BatchReview[],
  deps: AdmissionDeps,
  index?: CandidateIndex,
): Evaluation[] {
  // A phase with no policies (most webhooks serve one or two of the three) evaluates nothing.
  if (policies.length === 0) return reviews.map(() => NOTHING);
  const out = reviews.map(
    (): { responses: PolicyResponse[]; left: readonly CompiledPolicy[]; stopped?: StopReason } => ({
      responses: [],
      left: [],
    }),
  );
  const running = new Array<boolean>(reviews.length).fill(true);
  /** This policy's response for each review it ran on (undefined: not run). */
  const step = new Array<PolicyResponse | undefined>(reviews.length);
  /** Each review's candidate mask over `policies` (undefined: every policy runs). */
  const masks = reviews.map((review) => candidatesOf(index, review));
  let t0 = deps.now();
  for (let i = 0; i < policies.length; i++) {
    const policy = policies[i] as CompiledPolicy;
    let ran = 0;
    for (let r = 0; r < reviews.length; r++) {
      step[r] = undefined;
      if (!running[r]) continue;
      const review = reviews[r] as BatchReview;
      if (t0 - review.deadline.start > deps.deadlineSeconds) {
        running[r] = false;
        (out[r] as (typeof out)[number]).left = policies.slice(i);
        continue;
      }
      if (masks[r]?.[i] === 0) continue;
      review.interruption.resume();
      try {
        step[r] = validateSafely(deps, policy, review);
      } catch (e) {
        if (!isInterruption(e)) throw e;
        running[r] = false;
        const stopped = out[r] as (typeof out)[number];
        stopped.left = policies.slice(i);
        stopped.stopped = review.interruption.reason ?? "deadline";
        continue;
      }
      ran++;
    }
    if (ran === 0) continue;
    const t1 = deps.now();
    const seconds = (t1 - t0) / ran;
    // Answers what a worker is blocked on (bridge calls, a job's end); that time is no policy's.
    t0 = deps.runner?.answerWaiting?.() === true ? deps.now() : t1;
    for (let r = 0; r < reviews.length; r++) {
      const response = step[r];
      if (response === undefined) continue;
      const review = reviews[r] as BatchReview;
      review.interruption.charge(seconds);
      if (response.rules.length === 0) continue;
      (out[r] as (typeof out)[number]).responses.push(response);
      recordRules(deps, review.subject, response, "validate", seconds);
    }
  }
  return out;
}

/**
 * A review's candidate mask; undefined (every policy runs, and answers for itself) without an index,
 * or if the request cannot be read for it.
 */
function candidatesOf(index: CandidateIndex | undefined, review: BatchReview): Uint8Array | undefined {
  if (index === undefined) return undefined;
  try {
    return index.candidates(review.prepared);
  } catch {
    return undefined;
  }
}

/** The evaluation of no policies, shared by every review of such a phase (read-only to its readers). */
const NOTHING: Evaluation = { responses: [], left: [] };

/** One policy on one review; an engine bug becomes an error result, an interruption is thrown on. */
function validateSafely(deps: AdmissionDeps, policy: CompiledPolicy, review: BatchReview): PolicyResponse {
  try {
    return withNamespaceFacts(policy, review, "Validation", (p) =>
      deps.engine.validate(p, review.prepared, review.interruption),
    );
  } catch (e) {
    if (isInterruption(e)) throw e;
    return evaluationError(policy, review.subject.object, "Validation", e);
  }
}

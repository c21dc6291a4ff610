/**
 * The per-review deadline and the bound on a review's work on the main thread.
 *
 * Between policies the clock is read once per policy and batch: once the review has run longer than
 * `deps.deadlineSeconds` (set below the webhook timeout), no further policy starts. Inside a policy
 * the engine checks the review's `ReviewInterruption` every 1,024 units of work (foreach elements,
 * pattern list items, containers, JMESPath steps): past the deadline, the policy stops there. The
 * policies left out or stopped then decide by their failurePolicy, as an engine error would: if any
 * of them is Fail the request is denied with the message below; if all are Ignore it is allowed on
 * the results so far.
 *
 * In a batch, a review also has a slice: `inlineChecks` × 1,024 units of work (about 32k units,
 * tens of milliseconds at most), and no check after `INLINE_SECONDS` of its own evaluation since its
 * first check (the batch's time on other reviews between two of its policies is not its own).
 * A sliced review is checked every SLICE_TICKS_PER_CHECK units, not 1,024, and a context entry
 * read counts 16 units (engine/interrupt), so that work units made slow by what each does (a
 * context entry per foreach element) cannot hold this thread either: with 1,024 units between
 * checks, a review reading two live entries per element held it for hundreds of milliseconds. A review past its slice leaves the batch, which goes on without
 * it, and finishes off the batch (continue-review.ts): one review's cost never spends another's
 * deadline. A review that never reaches a check (under 1,024 units: almost all) is never cut for a
 * slow neighbour in its batch; one that does is at worst moved off the batch, never denied for it.
 */
import {
  type CompiledPolicy,
  EvaluationInterrupted,
  type Interruption,
  isInterruption,
  type PolicyResponse,
  type Resource,
  type RuleType,
  TICKS_PER_CHECK,
} from "../../engine/index.js";
import type { AdmissionDeps } from "./deps.js";
import { failurePolicyOf } from "./policy-traits.js";

/** Checks a review may spend inline in a batch before it leaves it (× 1,024 units of work). */
export const DEFAULT_INLINE_CHECKS = 32;

/**
 * Seconds of a review's own evaluation past which a check ends its inline slice (with a bounded
 * slice only). Its own: in a batch, each policy it finished is charged its share of that policy's
 * time over the batch (`charge`), and the policy being evaluated the time between its checks; the
 * time the batch spends on other reviews' policies is not this review's.
 */
const INLINE_SECONDS = 0.01;

export interface Deadline {
  readonly start: number;
  /** When the deadline passes, on the `deps.now()` clock. */
  readonly at: number;
  /** Seconds since the review started. */
  elapsed(): number;
  passed(): boolean;
}

export function startDeadline(deps: AdmissionDeps): Deadline {
  const start = deps.now();
  const at = start + deps.deadlineSeconds;
  return {
    start,
    at,
    elapsed: () => deps.now() - start,
    passed: () => deps.now() > at,
  };
}

/**
 * What stopped a review's evaluation: its slice of inline work ran out (it goes on off the batch),
 * or its deadline passed (the policies not finished answer by their failurePolicy).
 */
export type StopReason = "slice" | "deadline";

/** Units of work before a sliced review's first check, and between its checks after it. */
const SLICE_TICKS_PER_CHECK = 128;

/** The engine's Interruption for one review: a slice of checks (unbounded: none), and the deadline. */
export class ReviewInterruption implements Interruption {
  /**
   * With a slice, checks come every SLICE_TICKS_PER_CHECK units, not 1,024, so that the time bound
   * starts early and holds when each unit is slow (a context entry per foreach element); almost all
   * reviews do fewer units and never check.
   */
  ticks = 0;
  readonly ticksPerCheck: number | undefined;
  checks = 0;
  /** With a slice: the checks it may take (its units over SLICE_TICKS_PER_CHECK). */
  private readonly maxSliceChecks: number;
  /** Set when `check()` stopped an evaluation. */
  reason: StopReason | undefined;
  /** With a bounded slice: the review's own evaluation time in the policies it finished, in seconds. */
  private ownSeconds = 0;
  /** Its time between the checks of the policy now being evaluated. */
  private runSeconds = 0;
  /** The clock at the last check of the policy now being evaluated; undefined before its first. */
  private lastCheck: number | undefined;

  constructor(
    private readonly now: () => number,
    private readonly deadlineAt: number,
    /** The slice, in checks of 1,024 units (unbounded: no slice). */
    maxChecks: number = Number.POSITIVE_INFINITY,
  ) {
    const sliced = Number.isFinite(maxChecks);
    this.ticksPerCheck = sliced ? SLICE_TICKS_PER_CHECK : undefined;
    this.maxSliceChecks = sliced ? (maxChecks * TICKS_PER_CHECK) / SLICE_TICKS_PER_CHECK : maxChecks;
  }

  /**
   * A policy of the review starts after a pause (the batch ran other reviews' policies since this
   * one's last check): the time until its first check is not counted here. Called before each policy.
   */
  resume(): void {
    this.lastCheck = undefined;
    this.runSeconds = 0;
  }

  /** The review finished a policy whose share of the batch's time was `seconds`. */
  charge(seconds: number): void {
    this.ownSeconds += seconds;
  }

  check(): void {
    const t = this.now();
    if (this.ticksPerCheck !== undefined) {
      if (this.lastCheck !== undefined) this.runSeconds += t - this.lastCheck;
      this.lastCheck = t;
    }
    if (++this.checks > this.maxSliceChecks || this.ownSeconds + this.runSeconds > INLINE_SECONDS) this.stop("slice");
    if (t > this.deadlineAt) this.stop("deadline");
  }

  private stop(reason: StopReason): never {
    this.reason = reason;
    throw new EvaluationInterrupted(
      reason === "slice" ? "the review ran past its inline slice" : "the review ran past its deadline",
    );
  }
}

/** The denial for policies the deadline left out, when one of them is failurePolicy Fail; else undefined. */
export function deadlineDenial(deadlineSeconds: number, left: readonly CompiledPolicy[]): string | undefined {
  const failing = left.filter((p) => failurePolicyOf(p) === "Fail");
  if (failing.length === 0) return undefined;
  const names = failing.map((p) => (p.namespace === "" ? p.name : `${p.namespace}/${p.name}`)).join(", ");
  return `bylaw: admission review exceeded its deadline of ${deadlineSeconds}s before evaluating ${failing.length} ${failing.length === 1 ? "policy" : "policies"} with failurePolicy Fail (${names}); denied`;
}

/**
 * One policy's evaluation; an exception (an engine bug) becomes an error result, never a crash. An
 * interruption is not an error: it is thrown on for the caller, which answers by its reason.
 */
export function evaluateSafely(
  policy: CompiledPolicy,
  resource: Resource,
  type: RuleType,
  evaluate: () => PolicyResponse,
): PolicyResponse {
  try {
    return evaluate();
  } catch (e) {
    if (isInterruption(e)) throw e;
    return evaluationError(policy, resource, type, e);
  }
}

/** The response for a policy whose evaluation threw: one error result naming the policy. */
export function evaluationError(
  policy: CompiledPolicy,
  resource: Resource,
  type: RuleType,
  e: unknown,
): PolicyResponse {
  const reason = e instanceof Error ? e.message : String(e);
  return {
    policy,
    resource,
    rules: [
      {
        rule: "evaluation",
        type,
        status: "error",
        message: `bylaw: evaluating policy ${policy.name} failed: ${reason}`,
      },
    ],
  };
}

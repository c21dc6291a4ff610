/**
 * Reviews whose policies make network calls (apiCall POST, service calls; docs/adr/0012). The
 * engine is synchronous, the calls are not, so such a review is evaluated in passes:
 * 1. evaluate the review inside its record of calls; the live port answers each new call "pending"
 *    and records it (the pass's results and metrics are held back, not recorded);
 * 2. if the pass recorded calls, make them (in parallel, bounded, under what is left of the
 *    review's deadline), keep the answers in the record, and evaluate again;
 * 3. a pass that records no new call is the answer: its results are recorded and it is sent.
 * Each pass must add answers (a call is made at most once per review, and one review makes at most
 * a bounded number of calls), so the loop ends; each pass runs under what is left of the deadline.
 * Reviews through webhooks whose policies make no network call never come here: the batch path is
 * unchanged for them (one memoised check per batch).
 */
import type { CompiledPolicy, PolicyResponse } from "../../engine/index.js";
import type { AdmissionOutcome, AdmissionRecorder } from "../types.js";
import type { AdmissionDeps } from "./deps.js";
import type { HandlerResult } from "./types.js";

/** The per-review record of network calls (src/kube/review-calls.ts implements it). */
interface ReviewCallRecord {
  /** Runs `fn` with this record as the live port's per-review cache (async continuations included). */
  within<T>(fn: () => T): T;
  /** Calls recorded in the last pass and not made yet. */
  readonly pending: number;
  /** Makes the pending calls, giving up on those still running after `timeoutMs`. */
  settle(timeoutMs: number): Promise<void>;
}

/** What the admission handlers need to evaluate reviews whose policies make network calls. */
export interface ReviewCallsPort {
  /** Whether a policy has context entries answered by a network call (worked out once per policy by the caller). */
  usesCalls(policy: CompiledPolicy): boolean;
  begin(): ReviewCallRecord;
}

/** Most passes of one review: far above any real chain of dependent calls. */
const MAX_PASSES = 8;

const usesByList = new WeakMap<readonly CompiledPolicy[], boolean>();

/** Whether any of these policies makes network calls, memoised per (immutable, per-snapshot) plan list. */
export function planMakesCalls(port: ReviewCallsPort | undefined, policies: readonly CompiledPolicy[]): boolean {
  if (port === undefined || policies.length === 0) return false;
  let uses = usesByList.get(policies);
  if (uses === undefined) {
    uses = policies.some((p) => port.usesCalls(p));
    usesByList.set(policies, uses);
  }
  return uses;
}

/** Evaluates one review in passes (see the file comment); `evaluate` is the handler's own evaluation of it. */
export async function evaluateWithCalls(
  port: ReviewCallsPort,
  deps: AdmissionDeps,
  evaluate: (deps: AdmissionDeps) => HandlerResult | Promise<HandlerResult>,
): Promise<HandlerResult> {
  const record = port.begin();
  const start = deps.now();
  for (let pass = 1; ; pass++) {
    const left = deps.deadlineSeconds - (deps.now() - start);
    const held = new HeldRecorder(deps.recorder, () => deps.now() - start);
    const answer = await record.within(() => evaluate({ ...deps, recorder: held, deadlineSeconds: Math.max(0, left) }));
    const remaining = deps.deadlineSeconds - (deps.now() - start);
    // Past the last pass or the deadline, the answer stands: a call still pending is a rule error
    // in it, answered under the policy's failurePolicy.
    if (record.pending === 0 || pass >= MAX_PASSES || remaining <= 0) {
      held.release();
      return answer;
    }
    // The calls get what is left but a little, so that the last pass can still say which timed out.
    await record.settle((remaining - Math.min(remaining * 0.2, 0.5)) * 1000);
  }
}

/** Holds a pass's records until the pass turns out to be the answer. */
class HeldRecorder implements AdmissionRecorder {
  private readonly held: (() => void)[] = [];

  constructor(
    private readonly target: AdmissionRecorder,
    /** Seconds since the review's first pass began: its duration covers every pass and call. */
    private readonly elapsed: () => number,
  ) {}

  admission(outcome: AdmissionOutcome, results?: readonly PolicyResponse[]): void {
    this.held.push(() => this.target.admission({ ...outcome, durationSeconds: this.elapsed() }, results));
  }

  policyResults(...args: Parameters<AdmissionRecorder["policyResults"]>): void {
    this.held.push(() => this.target.policyResults(...args));
  }

  release(): void {
    for (const r of this.held) r();
    this.held.length = 0;
  }
}

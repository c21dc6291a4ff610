/**
 * Where a review that left its batch finishes (see deadline.ts): a ReviewRunner runs the
 * review's remaining policies, in order, under the review's deadline, and says which it finished
 * and which the deadline left. The worker pool (server/worker/worker-pool.ts) runs them off the main thread; the
 * deferred runner here runs them on it, after the batch has been answered, for tests and for
 * `--eval-workers 0`.
 */
import {
  type CompiledPolicy,
  type Engine,
  type EngineRequest,
  isInterruption,
  type JsonObject,
  type PolicyResponse,
} from "../../engine/index.js";
import { evaluationError, ReviewInterruption } from "./deadline.js";
import type { PolicySnapshot } from "../types.js";
import type { AdmissionDeps } from "./deps.js";
import { withNamespaceFacts } from "./namespace-facts.js";

/** What a job runs: validate rules, or mutate rules chained (each policy sees the resource the earlier ones patched). */
export type RunKind = "validate" | "mutate";

export interface RunJob {
  /** Default validate. */
  readonly kind?: RunKind;
  /** The snapshot the policies come from (a worker compiles each snapshot once). */
  readonly snapshot: PolicySnapshot;
  readonly policies: readonly CompiledPolicy[];
  readonly request: EngineRequest;
  /** The review's namespace when the cluster facts do not know it (admission/namespace-facts.ts). */
  readonly unknownNamespace?: string;
  /** The object an evaluation error names (the review's object). */
  readonly object: JsonObject;
  /** The review's deadline on the `deps.now()` clock. */
  readonly deadlineAt: number;
}

/** A policy finished off the batch, with its measured time. */
export interface RunDone {
  readonly response: PolicyResponse;
  readonly seconds: number;
}

export interface RunOutcome {
  /** The policies finished, in order. */
  readonly done: readonly RunDone[];
  /** The policies the deadline left (the rest of the job's, in order). */
  readonly left: readonly CompiledPolicy[];
  /** Mutate: the resource after the finished policies' patches, when they changed it. */
  readonly resource?: JsonObject;
}

export interface ReviewRunner {
  run(job: RunJob): Promise<RunOutcome>;
  /**
   * Handles now what the runner's workers wait on this thread for, if any (their live-context calls,
   * the end of a job, which starts the next): called between policies of a batch, so that a worker
   * does not wait for this thread's event loop. Whether there was any.
   */
  answerWaiting?(): boolean;
  /** Stops the runner's workers, if any. */
  close?(): Promise<void>;
}

/** Runs the job on this thread in a later turn of the event loop, once the batch's answers are out. */
export function deferredRunner(deps: Pick<AdmissionDeps, "engine" | "now">): ReviewRunner {
  return {
    run: (job) =>
      new Promise((resolve) => {
        setImmediate(() => resolve(runPolicies(deps.engine, deps.now, job)));
      }),
  };
}

/**
 * The job's policies in order under its deadline: a policy stopped by it, and those after it, are
 * left. An engine bug in one policy is that policy's error result, and a namespace the cluster facts
 * do not know makes the rules that select by its labels errors, as in a batch. Validate policies
 * share one prepared request; each mutate policy sees the resource the earlier ones patched.
 */
export function runPolicies(
  engine: Engine,
  now: () => number,
  job: Omit<RunJob, "snapshot">,
  onDone?: (done: RunDone, index: number) => void,
): RunOutcome {
  const { policies, object, kind = "validate" } = job;
  const subject = {
    engineRequest: job.request,
    ...(job.unknownNamespace !== undefined ? { unknownNamespace: job.unknownNamespace } : {}),
  };
  const interruption = new ReviewInterruption(now, job.deadlineAt);
  const done: RunDone[] = [];
  const original = job.request.resource;
  let current = original;
  const type = kind === "mutate" ? "Mutation" : "Validation";
  const prepared = kind === "validate" ? engine.prepare(job.request) : undefined;
  // The namespace facts read the rules' gates from the job's request as it came (mutate: as patched so far).
  const facts = { subject, prepared: prepared ?? engine.prepare(job.request) };
  const evaluate = (p: CompiledPolicy): PolicyResponse =>
    prepared === undefined
      ? engine.mutate(p, { ...job.request, resource: current }, undefined, interruption)
      : engine.validate(p, prepared, interruption);
  const outcome = (left: readonly CompiledPolicy[]): RunOutcome =>
    current === original ? { done, left } : { done, left, resource: current };
  for (let i = 0; i < policies.length; i++) {
    const policy = policies[i] as CompiledPolicy;
    const t0 = now();
    if (t0 > job.deadlineAt) return outcome(policies.slice(i));
    let response: PolicyResponse;
    try {
      response = withNamespaceFacts(policy, facts, type, evaluate);
    } catch (e) {
      if (isInterruption(e)) return outcome(policies.slice(i));
      response = evaluationError(policy, kind === "mutate" ? current : object, type, e);
    }
    // As the mutate webhook chains them: a policy with a failing or erroring rule contributes no patch.
    if (kind === "mutate" && !response.rules.some((r) => r.status === "fail" || r.status === "error"))
      current = response.patchedResource ?? current;
    // The patched resource travels once, in the outcome, not with every policy.
    const one = {
      response: { policy: response.policy, resource: response.resource, rules: response.rules },
      seconds: now() - t0,
    };
    done.push(one);
    onDone?.(one, i);
  }
  return outcome([]);
}

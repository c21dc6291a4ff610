/**
 * A small pool of evaluation workers (worker_threads) where reviews that left their batch finish,
 * off the main thread, so that liveness, metrics and every other review stay answered while one
 * heavy review is evaluated. Each worker compiles the policy snapshot a job needs the first time it
 * sees it. With live context (`--cluster`), a worker's engine reads it through a bridge to this
 * thread's caches (context-bridge.ts, bridge-host.ts), each call answered within its review's
 * context. A job waits in its namespace's queue while no worker may take it (fair-queue.ts: one
 * namespace holds at most `size - 1` workers, at least 1, and a spare worker serves a namespace
 * holding none when every other worker is busy), but never past its deadline. A
 * worker stops a job at the deadline by itself; one still running it 250 ms later (stuck) is
 * terminated and replaced. Either way the job's unfinished policies are left to their
 * failurePolicy. A worker that fails turns the job's
 * unfinished policies into evaluation errors (which deny under failurePolicy Fail), never a pass.
 * A worker reports on a counted channel (counted-channel.ts), and `answerWaiting`, called between
 * the policies of a batch, answers its live-context calls and takes the end of its job (starting the
 * next) without waiting for this thread's event loop to turn.
 */
import { AsyncResource } from "node:async_hooks";
import { Worker } from "node:worker_threads";
import {
  type CompiledPolicy,
  type ContextSources,
  type JsonObject,
  requestSubject,
  resourceNamespace,
  policyMatchNames,
  kyvernoCompiledRules,
} from "../../engine/index.js";
import { evaluationError } from "../admission/deadline.js";
import type { PolicySnapshot } from "../types.js";
import type { ReviewRunner, RunDone, RunJob, RunOutcome } from "../admission/review-runner.js";
import { KeptSnapshots, wireRequest, type FromWorker, type SnapshotPolicy, type ToWorker } from "./wire.js";
import { type HostedBridge, hostBridge } from "./bridge-host.js";
import { type CountedChannel, countedChannel } from "./counted-channel.js";
import { FairQueue } from "./fair-queue.js";
import { recipeOf } from "./policy-recipe.js";
import type { ClusterTypedKinds } from "../../kube/openapi-typed-kinds.js";

/** How long past a job's deadline a running worker may take to stop by itself before it is terminated. */
const TERMINATE_GRACE_MS = 250;

interface WorkerPoolOptions {
  /** Workers (at least 1). */
  readonly size: number;
  /** The clock the jobs' deadlines are on (deps.now: seconds). */
  readonly now: () => number;
  /** A worker failed or was replaced. */
  readonly onEvent?: (event: string, detail: Record<string, unknown>) => void;
  /** The worker's module (default: evaluation-worker.js beside this file). */
  readonly workerUrl?: URL;
  /** Live context (`--cluster`): the workers' engines read it through a bridge to this thread. */
  readonly context?: ContextSources;
  /** The cluster's kinds (`--cluster`): a worker is sent them before a job whenever they changed. */
  readonly types?: Pick<ClusterTypedKinds, "version" | "state">;
  /**
   * Each worker's heap bound in MiB (V8's old generation): a review that outgrows it ends that worker
   * (ERR_WORKER_OUT_OF_MEMORY), whose job's policies become errors, and a fresh worker takes its
   * place; the process and the other reviews go on. Default: V8's own.
   */
  readonly heapMiB?: number;
  /** Whether a spare worker serves a namespace holding none while the others are busy (default true). */
  readonly spare?: boolean;
}

interface Job {
  readonly id: number;
  readonly run: RunJob;
  readonly indexes: readonly number[];
  readonly snapshotId: number;
  readonly done: RunDone[];
  readonly resolve: (outcome: RunOutcome) => void;
  /** The reviewed object's namespace ("" cluster-scoped): the queue it waits in. */
  readonly key: string;
  /** Runs a forwarded live-context call within the review's async context (its record of calls). */
  readonly within: <T>(fn: () => T) => T;
  /** Mutate: the patched resource the worker reported at the end. */
  resource?: JsonObject;
  timer?: ReturnType<typeof setTimeout>;
  slot?: Slot;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  /** The snapshots this worker keeps compiled, and the policy recipes they name (its own record of them). */
  kept: KeptSnapshots;
  /** The version of the cluster's kinds this worker was sent. */
  types?: number;
  /** This worker's end of the live-context bridge, with live context. */
  bridge?: HostedBridge;
  /** The channel this worker reports its jobs on. */
  replies?: CountedChannel;
  /** The spare: it takes only a job whose namespace holds no worker. */
  readonly spare: boolean;
}

interface SnapshotInfo {
  readonly id: number;
  /**
   * Each policy's place in the snapshot, by its origin (one per compile; a webhook plan may hold a copy
   * with fewer rules, which keeps it). Not by document: two policies may be compiled from one document.
   */
  readonly index: ReadonlyMap<CompiledPolicy["origin"], number>;
}

interface WorkerPool extends ReviewRunner {
  answerWaiting(): boolean;
  /**
   * Sends a snapshot just loaded to every worker now, so that each compiles what changed before a
   * review needs it, rather than the first review that leaves its batch waiting for the compile.
   */
  warm(snapshot: PolicySnapshot): void;
  close(): Promise<void>;
}

/**
 * A worker's young generation, in MiB. V8's default lets it grow to tens of MiB once a worker has
 * compiled a snapshot or run a heavy review, and keeps it; a worker runs only the reviews that leave
 * their batch, so a small one costs it a few more scavenges, not throughput. Measured with 346 corpus
 * ClusterPolicies under load (bylaw serve --policies): peak RSS 273-277 MiB with the default, 248-251
 * with 8, throughput within the run-to-run spread.
 */
const WORKER_YOUNG_GENERATION_MIB = 8;

export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const url = options.workerUrl ?? new URL("./evaluation-worker.js", import.meta.url);
  const snapshots = new WeakMap<PolicySnapshot, SnapshotInfo>();
  const queue = new FairQueue<Job>();
  /** Most workers one namespace may hold: all but one, so that another namespace finds one. */
  const cap = Math.max(1, options.size - 1);
  let nextSnapshot = 1;
  const recipeIds = new WeakMap<CompiledPolicy["origin"], number>();
  let nextRecipe = 1;
  let nextJob = 1;
  let closed = false;

  /** A new worker for `slot`; its events are bound to the slot and to this worker. */
  function spawn(slot: Slot): Worker {
    const bridge =
      options.context !== undefined
        ? hostBridge(options.context, (id) => (slot.job?.id === id ? slot.job.within : undefined))
        : undefined;
    slot.bridge?.close();
    if (bridge !== undefined) slot.bridge = bridge;
    // The worker's reports come on a counted channel, so that a busy main thread takes a job's end
    // (and starts the next job) between the policies of its batch (answerWaiting).
    slot.replies?.close();
    const replies = countedChannel((m: FromWorker) => onMessage(slot, worker, m));
    slot.replies = replies;
    const limits = {
      resourceLimits: {
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MIB,
        ...(options.heapMiB !== undefined ? { maxOldGenerationSizeMb: options.heapMiB } : {}),
      },
    };
    const worker = new Worker(url, {
      workerData: { replies: replies.worker, ...(bridge !== undefined ? { bridge: bridge.init } : {}) },
      transferList: [replies.worker.port, ...(bridge !== undefined ? [bridge.init.port] : [])],
      ...limits,
    });
    worker.unref();
    worker.on("message", (m: FromWorker) => onMessage(slot, worker, m));
    worker.on("error", (e) => {
      options.onEvent?.("worker failed", { error: e.message });
      replace(slot, worker, `the evaluation worker failed: ${e.message}`);
    });
    worker.on("exit", (code) => {
      if (!closed && slot.worker === worker) replace(slot, worker, `the evaluation worker exited with code ${code}`);
    });
    return worker;
  }
  function newSlot(spare: boolean): Slot {
    // The slot is complete once its worker is spawned (the worker's events refer to the slot).
    const slot = { job: undefined, kept: new KeptSnapshots(), spare } as unknown as Slot;
    slot.worker = spawn(slot);
    return slot;
  }
  const slots: Slot[] = Array.from({ length: Math.max(1, options.size) }, () => newSlot(false));

  function snapshotInfo(snapshot: PolicySnapshot): SnapshotInfo {
    let info = snapshots.get(snapshot);
    if (info === undefined) {
      info = { id: nextSnapshot++, index: new Map(snapshot.policies.map((p, i) => [p.origin, i])) };
      snapshots.set(snapshot, info);
    }
    return info;
  }

  function post(slot: Slot, message: ToWorker): void {
    slot.worker.postMessage(message);
  }

  /** A policy's recipe id: one per policy the main thread compiled (by its origin), reused by every snapshot that holds it. */
  function recipeId(policy: CompiledPolicy): number {
    let id = recipeIds.get(policy.origin);
    if (id === undefined) recipeIds.set(policy.origin, (id = nextRecipe++));
    return id;
  }

  /**
   * Sends the snapshot to the worker unless it keeps it: each policy by its recipe id, with its recipe
   * only when the worker holds none compiled (a new or changed policy), so a reload costs the worker
   * the policies that changed, not the whole set.
   */
  function sendSnapshot(slot: Slot, snapshot: PolicySnapshot): void {
    const info = snapshotInfo(snapshot);
    if (slot.kept.has(info.id)) return;
    const policies = snapshot.policies.map((p): SnapshotPolicy => {
      const id = recipeId(p);
      return slot.kept.holds(id) ? { id } : { id, recipe: recipeOf(p), ruleNames: policyMatchNames(p) };
    });
    post(slot, {
      type: "snapshot",
      id: info.id,
      policies,
      exceptions: (snapshot.exceptions ?? []).map((e) => e.document),
    });
    slot.kept.add(
      info.id,
      policies.map((p) => p.id),
    );
  }

  /** Ends a job with what it finished; `error` turns its unfinished policies into evaluation errors. */
  function settle(job: Job, error?: string): void {
    if (job.timer !== undefined) clearTimeout(job.timer);
    queue.remove(job.key, job);
    if (job.slot !== undefined && job.slot.job === job) job.slot.job = undefined;
    const rest = job.run.policies.slice(job.done.length);
    const resource = job.resource !== undefined ? { resource: job.resource } : {};
    if (error === undefined) return job.resolve({ done: job.done, left: rest, ...resource });
    const type = job.run.kind === "mutate" ? "Mutation" : "Validation";
    job.resolve({
      done: [
        ...job.done,
        ...rest.map((p) => ({ response: evaluationError(p, job.run.object, type, new Error(error)), seconds: 0 })),
      ],
      left: [],
      ...resource,
    });
  }

  function onMessage(slot: Slot, worker: Worker, m: FromWorker): void {
    const job = slot.job;
    if (slot.worker !== worker || job === undefined || m.job !== job.id) return;
    if (m.type === "done") {
      const policy = job.run.policies[m.index] as CompiledPolicy;
      job.done.push({
        response: { policy, resource: requestSubject(job.run.request), rules: m.rules },
        seconds: m.seconds,
      });
      return;
    }
    if (m.resource !== undefined) job.resource = m.resource;
    settle(job, m.error);
    pump();
  }

  /** Terminates a worker (past a deadline, or failed) and puts a fresh one in its slot. */
  function replace(slot: Slot, worker: Worker, error?: string): void {
    if (slot.worker !== worker) return;
    const job = slot.job;
    slot.job = undefined;
    if (!closed) {
      slot.worker = spawn(slot);
      slot.kept = new KeptSnapshots();
      delete slot.types;
    } else {
      slot.bridge?.close();
      slot.replies?.close();
    }
    void worker.terminate();
    if (job !== undefined) settle(job, error);
    pump();
  }

  function start(slot: Slot, job: Job): void {
    slot.job = job;
    job.slot = slot;
    sendSnapshot(slot, job.run.snapshot);
    const types = options.types;
    if (types !== undefined && slot.types !== types.version) {
      post(slot, { type: "types", state: types.state() });
      slot.types = types.version;
    }
    const remainingSeconds = job.run.deadlineAt - options.now();
    const unknown = job.run.unknownNamespace;
    post(slot, {
      type: "run",
      kind: job.run.kind ?? "validate",
      job: job.id,
      snapshot: job.snapshotId,
      policies: job.indexes,
      rules: job.run.policies.map((p, k) => narrowedRules(p, job.run.snapshot.policies[job.indexes[k] ?? -1])),
      request: wireRequest(job.run.request),
      exceptions: (job.run.request.exceptions?.length ?? 0) > 0,
      remainingSeconds,
      ...(unknown !== undefined ? { unknownNamespace: unknown } : {}),
    });
  }

  const heldBy = (key: string): number => slots.filter((s) => s.job?.key === key).length;

  /** The next job and the worker to run it: a free worker, else the spare for a namespace holding none. */
  function next(): { slot: Slot; job: Job } | undefined {
    const free = slots.find((s) => !s.spare && s.job === undefined);
    if (free !== undefined) {
      const taken = queue.take(heldBy, cap);
      return taken === undefined ? undefined : { slot: free, job: taken.job };
    }
    if (options.spare === false || slots.some((s) => s.spare && s.job !== undefined)) return undefined;
    const taken = queue.take(heldBy, 1);
    if (taken === undefined) return undefined;
    let spare = slots.find((s) => s.spare);
    if (spare === undefined) slots.push((spare = newSlot(true)));
    return { slot: spare, job: taken.job };
  }

  function pump(): void {
    for (;;) {
      const n = next();
      if (n === undefined) return;
      const { slot, job } = n;
      try {
        start(slot, job);
      } catch (e) {
        settle(
          job,
          `the review could not be sent to an evaluation worker: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    }
  }

  return {
    run(run: RunJob): Promise<RunOutcome> {
      return new Promise((resolve) => {
        const info = snapshotInfo(run.snapshot);
        const indexes = run.policies.map((p) => info.index.get(p.origin) ?? -1);
        const key = resourceNamespace(requestSubject(run.request));
        // Bound here, in the review's async context: a forwarded call is answered within it.
        const within = AsyncResource.bind(<T>(fn: () => T): T => fn());
        const job: Job = { id: nextJob++, run, indexes, snapshotId: info.id, done: [], resolve, key, within };
        if (closed) return settle(job, "the server is shutting down");
        if (indexes.includes(-1)) return settle(job, "a policy of the review is not in its policy snapshot");
        const remaining = run.deadlineAt - options.now();
        if (remaining <= 0) return settle(job);
        job.timer = setTimeout(
          () => {
            const slot = job.slot;
            if (slot === undefined || slot.job !== job) return settle(job);
            // The worker stops a job at its deadline by itself; one that has not within the grace is stuck.
            job.timer = setTimeout(() => {
              if (slot.job !== job) return;
              options.onEvent?.("worker replaced", { reason: "a review ran past its deadline" });
              replace(slot, slot.worker);
            }, TERMINATE_GRACE_MS);
          },
          Math.ceil(remaining * 1000),
        );
        queue.push(key, job);
        pump();
      });
    },
    answerWaiting(): boolean {
      let any = false;
      for (const slot of slots) {
        if (slot.bridge?.answerWaiting() === true) any = true;
        if (slot.replies?.drain() === true) any = true;
      }
      return any;
    },
    warm(snapshot: PolicySnapshot): void {
      if (closed) return;
      for (const slot of slots) {
        try {
          sendSnapshot(slot, snapshot);
        } catch (e) {
          // Not sent now: the first job on this snapshot sends it (and settles as an error if it cannot).
          options.onEvent?.("warm-up failed", { error: e instanceof Error ? e.message : String(e) });
        }
      }
    },
    async close() {
      closed = true;
      for (const job of queue.all()) settle(job, "the server is shutting down");
      for (const slot of slots) if (slot.job !== undefined) settle(slot.job, "the server is shutting down");
      for (const slot of slots) {
        slot.bridge?.close();
        slot.replies?.close();
      }
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

/**
 * The rule names a worker narrows a policy to (the mutating webhook's plan leaves mutate-existing
 * rules out), or null when the job's policy has every rule of the snapshot's. Only kyverno.io
 * policies have rules to narrow.
 */
function narrowedRules(job: CompiledPolicy, snapshot: CompiledPolicy | undefined): string[] | null {
  const rules = kyvernoCompiledRules(job);
  return snapshot !== undefined && rules.length === kyvernoCompiledRules(snapshot).length
    ? null
    : rules.map((r) => r.name);
}

/**
 * Run many kyverno-test.yaml suites, sharing them out between the main thread and worker threads
 * (suite-worker.ts) when there are enough of them. Results come back in the files' order, whatever
 * thread ran each, so the output is the same as a run in one thread.
 */
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { SuiteResult } from "../../test-suite/types.js";
import type { SuiteJob, SuiteReply } from "./suite-messages.js";

/** Sets how many worker threads `bylaw test` starts: 0 runs every suite in the main thread. */
export const WORKERS_ENV = "BYLAW_TEST_WORKERS";
/** A worker thread costs a module load (tens of ms): start one per this many suites at most. */
export const SUITES_PER_WORKER = 16;
/**
 * Suites a thread runs at once: while one waits for its files, another evaluates (file reads go
 * through libuv's pool, and a worker then never waits for a busy main thread to send the next).
 */
export const IN_FLIGHT = 4;

/**
 * Worker threads to start for `suites` suites: BYLAW_TEST_WORKERS when set, else one per core
 * beyond the first (the main thread runs suites too), and none for fewer than SUITES_PER_WORKER.
 */
export function workerCount(suites: number, env: Readonly<Record<string, string | undefined>> = process.env, cores: number = availableParallelism()): number | { error: string } {
  const set = env[WORKERS_ENV];
  if (set !== undefined && set !== "") {
    if (!/^\d+$/.test(set)) return { error: `${WORKERS_ENV} must be a whole number of worker threads, 0 or more (got ${JSON.stringify(set)})` };
    return Math.min(Number(set), Math.max(0, suites - 1));
  }
  return Math.max(0, Math.min(cores - 1, Math.floor(suites / SUITES_PER_WORKER)));
}

export interface RunSuitesOptions {
  /** Worker threads besides the main thread (workerCount). */
  readonly workers: number;
  /** Runs one test file in the main thread: a suite per document of the file. */
  readonly runHere: (file: string) => Promise<SuiteResult[]>;
  /** Called as each suite finishes, in finishing order. */
  readonly onDone?: (finished: number, total: number, file: string) => void;
  /** The worker's module; suite-worker.js beside this one by default. */
  readonly workerUrl?: URL;
}

export async function runSuiteFiles(files: readonly string[], options: RunSuitesOptions): Promise<SuiteResult[]> {
  // node:worker_threads loads only when a worker starts (a small run then does not pay for it).
  const WorkerThread = options.workers > 0 ? (await import("node:worker_threads")).Worker : undefined;
  const results: (SuiteResult[] | undefined)[] = new Array<SuiteResult[] | undefined>(files.length);
  /** Suites whose worker failed before answering: the main thread runs them. */
  const retry: number[] = [];
  let next = 0;
  let finished = 0;
  let lanes = 0;
  let settled = false;

  return new Promise<SuiteResult[]>((resolve, reject) => {
    const workers = new Set<Worker>();
    const fail = (e: unknown): void => {
      if (settled) return;
      settled = true;
      for (const w of workers) void w.terminate();
      reject(e instanceof Error ? e : new Error(String(e)));
    };
    const take = (): number | undefined => retry.shift() ?? (next < files.length ? next++ : undefined);
    const done = (index: number, result: SuiteResult[]): void => {
      if (settled || results[index] !== undefined) return;
      results[index] = result;
      finished++;
      options.onDone?.(finished, files.length, files[index] ?? "");
      if (finished === files.length) {
        settled = true;
        for (const w of workers) void w.terminate();
        resolve((results as SuiteResult[][]).flat());
      }
    };

    /** One of the main thread's IN_FLIGHT lanes: runs suites until none is left. */
    const lane = async (): Promise<void> => {
      lanes++;
      try {
        for (let i = take(); i !== undefined && !settled; i = take()) done(i, await options.runHere(files[i] ?? ""));
      } finally {
        lanes--;
      }
    };
    const runMain = (): void => {
      while (lanes < IN_FLIGHT && !settled && (retry.length > 0 || next < files.length)) lane().catch(fail);
    };

    const startWorker = (): void => {
      if (WorkerThread === undefined) return;
      const worker = new WorkerThread(options.workerUrl ?? new URL("./suite-worker.js", import.meta.url));
      workers.add(worker);
      const held = new Set<number>();
      const feed = (): void => {
        while (held.size < IN_FLIGHT) {
          const i = take();
          if (i === undefined) break;
          held.add(i);
          worker.postMessage({ index: i, file: files[i] ?? "" } satisfies SuiteJob);
        }
        if (held.size === 0) {
          workers.delete(worker);
          void worker.terminate();
        }
      };
      const lost = (): void => {
        if (!workers.delete(worker)) return;
        // Whatever the worker held is run here, so a failing worker never loses a suite.
        retry.push(...held);
        held.clear();
        runMain();
      };
      worker.on("message", (reply: SuiteReply) => {
        held.delete(reply.index);
        if ("error" in reply) return fail(new Error(reply.error));
        done(reply.index, reply.result);
        feed();
      });
      worker.on("error", lost);
      worker.on("exit", lost);
      feed();
    };

    for (let w = 0; w < options.workers && next < files.length; w++) startWorker();
    if (files.length === 0) {
      settled = true;
      resolve([]);
      return;
    }
    runMain();
  });
}

/**
 * Run many kyverno-test.yaml suites, sharing them out between the main thread and worker threads
 * (suite-worker.ts) when there are enough of them. Every thread takes the next file from one shared
 * counter (take-index.ts), so a worker is never idle while the main thread is busy. Results come
 * back in the files' order, whatever thread ran each, so the output is the same as a run in one
 * thread.
 */
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { SuiteResult } from "../../test-suite/types.js";
import type { ParseCacheReport } from "../../../platform/files/parse-cache.js";
import type { SuiteReply, SuiteWorkerData } from "./suite-messages.js";
import { IN_FLIGHT, takeIndex } from "./take-index.js";

export { IN_FLIGHT } from "./take-index.js";

/** Sets how many worker threads `bylaw test` starts: 0 runs every suite in the main thread. */
export const WORKERS_ENV = "BYLAW_TEST_WORKERS";
/** A worker thread costs a module load (tens of ms): start one per this many suites at most. */
export const SUITES_PER_WORKER = 16;
/**
 * Worker threads to start for `suites` suites: BYLAW_TEST_WORKERS when set, else one per core
 * beyond the first (the main thread runs suites too) from three cores on, and none for fewer than
 * SUITES_PER_WORKER.
 */
export function workerCount(
  suites: number,
  env: Readonly<Record<string, string | undefined>> = process.env,
  cores: number = availableParallelism(),
): number | { error: string } {
  const set = env[WORKERS_ENV];
  if (set !== undefined && set !== "") {
    if (!/^\d+$/.test(set))
      return {
        error: `${WORKERS_ENV} must be a whole number of worker threads, 0 or more (got ${JSON.stringify(set)})`,
      };
    return Math.min(Number(set), Math.max(0, suites - 1));
  }
  // On two cores a worker is a loss: V8's compiler and GC threads already use much of the second
  // core, and a worker repeats the main thread's JIT work (docs/adr/0014-bundled-cli.md, 2026-11-28).
  if (cores < 3) return 0;
  return Math.min(cores - 1, Math.floor(suites / SUITES_PER_WORKER));
}

interface RunSuitesOptions {
  /** Worker threads besides the main thread (workerCount). */
  readonly workers: number;
  /** Runs one test file in the main thread: a suite per document of the file. */
  readonly runHere: (file: string) => Promise<SuiteResult[]>;
  /** Called as each suite finishes, in finishing order. */
  readonly onDone?: (finished: number, total: number, file: string) => void;
  /** The worker's module; suite-worker.js beside this one by default. */
  readonly workerUrl?: URL;
  /** The parse cache's pack, for the workers to read; their reports go to `adoptParsed`. */
  readonly parsePack?: string;
  readonly adoptParsed?: (report: ParseCacheReport) => void;
}

export async function runSuiteFiles(files: readonly string[], options: RunSuitesOptions): Promise<SuiteResult[]> {
  // node:worker_threads loads only when a worker starts (a small run then does not pay for it).
  const WorkerThread = options.workers > 0 ? (await import("node:worker_threads")).Worker : undefined;
  const results: (SuiteResult[] | undefined)[] = new Array<SuiteResult[] | undefined>(files.length);
  const shared = new SharedArrayBuffer(4);
  const counter = new Int32Array(shared);
  /** Suites whose worker ended before answering: the main thread runs them. */
  const retry: number[] = [];
  let finished = 0;
  let lanes = 0;
  let settled = false;

  return new Promise<SuiteResult[]>((resolve, reject) => {
    /** Each live worker, with the files it has taken and not answered yet. */
    const workers = new Map<Worker, Set<number>>();
    /** Files the main thread's lanes are running. */
    const here = new Set<number>();
    const fail = (e: unknown): void => {
      if (settled) return;
      settled = true;
      for (const w of workers.keys()) void w.terminate();
      reject(e instanceof Error ? e : new Error(String(e)));
    };
    const take = (): number | undefined => retry.shift() ?? takeIndex(counter, files.length);
    const done = (index: number, result: SuiteResult[]): void => {
      if (settled || results[index] !== undefined) return;
      results[index] = result;
      finished++;
      options.onDone?.(finished, files.length, files[index] ?? "");
      if (finished === files.length) {
        settled = true;
        for (const w of workers.keys()) void w.terminate();
        resolve((results as SuiteResult[][]).flat());
      }
    };

    /** One of the main thread's IN_FLIGHT lanes: runs suites until none is left. */
    const lane = async (): Promise<void> => {
      lanes++;
      try {
        for (let i = take(); i !== undefined && !settled; i = take()) {
          here.add(i);
          const result = await options.runHere(files[i] ?? "");
          here.delete(i);
          done(i, result);
        }
      } finally {
        lanes--;
      }
    };
    const runMain = (): void => {
      while (lanes < IN_FLIGHT && !settled && (retry.length > 0 || Atomics.load(counter, 0) < files.length))
        lane().catch(fail);
    };

    const startWorker = (): void => {
      if (WorkerThread === undefined) return;
      const worker = new WorkerThread(options.workerUrl ?? new URL("./suite-worker.js", import.meta.url), {
        workerData: {
          files,
          next: shared,
          ...(options.parsePack !== undefined ? { parsePack: options.parsePack } : {}),
        } satisfies SuiteWorkerData,
      });
      const held = new Set<number>();
      workers.set(worker, held);
      const lost = (): void => {
        if (!workers.delete(worker)) return;
        // Every file taken, unanswered and held by no other thread is run here (what this worker
        // held, and one it took but died before naming), so a failing worker never loses a suite.
        const taken = Math.min(Atomics.load(counter, 0), files.length);
        const elsewhere = (i: number): boolean =>
          here.has(i) || retry.includes(i) || [...workers.values()].some((h) => h.has(i));
        for (let i = 0; i < taken; i++) if (results[i] === undefined && !elsewhere(i)) retry.push(i);
        runMain();
      };
      worker.on("message", (reply: SuiteReply) => {
        if ("claimed" in reply) {
          held.add(reply.claimed);
          return;
        }
        held.delete(reply.index);
        if ("error" in reply) return fail(new Error(reply.error));
        if (reply.parsed !== undefined) options.adoptParsed?.(reply.parsed);
        done(reply.index, reply.result);
      });
      worker.on("error", lost);
      worker.on("exit", lost);
    };

    if (files.length === 0) {
      settled = true;
      resolve([]);
      return;
    }
    for (let w = 0; w < options.workers; w++) startWorker();
    runMain();
  });
}

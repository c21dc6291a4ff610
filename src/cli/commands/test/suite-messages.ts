/** Messages between `bylaw test` and its suite workers. */
import type { SuiteResult } from "../../test-suite/types.js";

/**
 * What a suite worker starts with (its workerData): every file of the run, and the shared counter
 * (an Int32Array's buffer) that the main thread and every worker take the next file's index from.
 */
export interface SuiteWorkerData {
  readonly files: readonly string[];
  readonly next: SharedArrayBuffer;
}

/**
 * From a worker: `claimed` as it takes a file (so a worker that dies loses none: the main thread
 * runs what it held); then that file's suites' results (one per document), or the error that ended
 * its run (`bylaw test` then stops as it would in-process).
 */
export type SuiteReply =
  | { readonly claimed: number }
  | { readonly index: number; readonly result: SuiteResult[] }
  | { readonly index: number; readonly error: string };

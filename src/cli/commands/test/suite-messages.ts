/** Messages between `bylaw test` and its suite workers. */
import type { ParseCacheReport } from "../../../platform/files/parse-cache.js";
import type { SuiteResult } from "../../test-suite/types.js";

/**
 * What a suite worker starts with (its workerData): every file of the run, and the shared counter
 * (an Int32Array's buffer) that the main thread and every worker take the next file's index from.
 */
export interface SuiteWorkerData {
  readonly files: readonly string[];
  readonly next: SharedArrayBuffer;
  /** The parse cache's pack the main thread uses (parse-cache.ts), read-only here. */
  readonly parsePack?: string;
}

/**
 * From a worker: `claimed` as it takes a file (so a worker that dies loses none: the main thread
 * runs what it held); then that file's suites' results (one per document) with what its parse cache
 * used and parsed (for the main thread's cache to keep), or the error that ended its run (`bylaw
 * test` then stops as it would in-process).
 */
export type SuiteReply =
  | { readonly claimed: number }
  | { readonly index: number; readonly result: SuiteResult[]; readonly parsed?: ParseCacheReport }
  | { readonly index: number; readonly error: string };

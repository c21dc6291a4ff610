/** Messages between `bylaw test` and its suite workers. */
import type { SuiteResult } from "../../test-suite/types.js";

/** Run the suite in `file`; `index` is its place in the run's order. */
export interface SuiteJob {
  readonly index: number;
  readonly file: string;
}

/** A file's suites' results (one per document), or the error that ended its run (`bylaw test` then stops as it would in-process). */
export type SuiteReply =
  | { readonly index: number; readonly result: SuiteResult[] }
  | { readonly index: number; readonly error: string };

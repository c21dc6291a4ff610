import type { JsonValue } from "../api/json.js";

/**
 * The outcome of matching a resource against a validate pattern, mapped as Kyverno's
 * `validate.MatchPattern` and the validate handler map it:
 * - `fail`: a mismatch at `path` (Kyverno's form, e.g. `/spec/containers/0/image/`);
 * - `skip`: a conditional `()` or global `<()` anchor did not hold, so the rule does not apply;
 * - `error`: a mismatch Kyverno reports without a path (for example an array length mismatch,
 *   or a failure while an anchored key is missing from the resource).
 * `message` is Kyverno's error text for the mismatch (used in skip and error messages).
 */
export type PatternOutcome =
  | { readonly status: "pass" }
  | { readonly status: "fail"; readonly path: string; readonly message: string }
  | { readonly status: "skip"; readonly message: string }
  | { readonly status: "error"; readonly message: string };

/** A pattern compiled once (anchors, operators and ranges parsed) and matched many times. */
export interface CompiledPattern {
  /** The pattern as written. */
  readonly source: JsonValue;
  match(resource: JsonValue): PatternOutcome;
}

/**
 * The outcome of an `anyPattern` list. `pass` names the first pattern that passed. Otherwise
 * `outcomes` holds each pattern's non-pass outcome by index, and `status` is `fail` when at least
 * one pattern failed or errored, else `skip` (every pattern skipped). The caller writes Kyverno's
 * message from these (see `anyPatternMessages`).
 */
export type AnyPatternOutcome =
  | { readonly status: "pass"; readonly index: number }
  | { readonly status: "fail" | "skip"; readonly outcomes: readonly IndexedOutcome[] };

export interface IndexedOutcome {
  readonly index: number;
  readonly outcome: Exclude<PatternOutcome, { status: "pass" }>;
}

/**
 * The mismatches the pattern walk reports, with Kyverno's error texts. `kind` says how the result
 * is judged: conditional and global anchor mismatches (and arrays where every element was skipped)
 * mean skip; a negation anchor match means fail; anything else fails at `path`, or is an error when
 * `path` is empty.
 */
type MismatchKind = "condition" | "global" | "negation" | "arraySkip" | "mapSkip" | "plain";

export interface Mismatch {
  readonly kind: MismatchKind;
  readonly message: string;
  /** Kyverno's element path, e.g. `/spec/containers/0/image/`; empty when Kyverno reports none. */
  readonly path: string;
}

/** Whether a mismatch means "the rule does not apply" (Kyverno's `skip`). */
export function isSkip(m: Mismatch): boolean {
  return m.kind === "condition" || m.kind === "global" || m.kind === "arraySkip" || m.kind === "mapSkip";
}

export function plain(message: string, path: string): Mismatch {
  return { kind: "plain", message, path };
}

export function conditionMismatch(message: string, path: string): Mismatch {
  return { kind: "condition", message: `conditional anchor mismatch: ${message}`, path };
}

export function globalMismatch(message: string, path: string): Mismatch {
  return { kind: "global", message: `global anchor mismatch: ${message}`, path };
}

export function negationMismatch(path: string): Mismatch {
  return { kind: "negation", message: `negation anchor matched in resource: ${path} is not allowed`, path };
}

/** Several skips combined, as `multierr.Combine` prints them (joined by `; `). */
export function combinedSkip(kind: "arraySkip" | "mapSkip", skips: readonly Mismatch[], path: string): Mismatch {
  return { kind, message: skips.map((s) => s.message).join("; "), path };
}

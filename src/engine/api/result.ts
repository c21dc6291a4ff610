/** Errors are values with a reason. `Result` is what fallible engine calls return. */
export type Result<T, E = EngineError> = { ok: true; value: T } | { ok: false; error: E };

export interface EngineError {
  /** A stable, machine-readable kind, e.g. "jmespath-syntax", "variable-substitution". */
  readonly kind: string;
  /** The message a user reads: what went wrong and, where possible, how to fix it. */
  readonly message: string;
  /** Where the problem is, as a field path like `spec.rules[0].validate.pattern`. */
  readonly path?: string;
}

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function err(kind: string, message: string, path?: string): { ok: false; error: EngineError } {
  return { ok: false, error: path === undefined ? { kind, message } : { kind, message, path } };
}

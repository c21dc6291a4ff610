/**
 * The errors the interpreter raises, with go-jmespath's texts so messages read as Kyverno's do.
 */
import { JmesPathError } from "./types.js";

/** A syntax error, with the offset in the expression where it was found (for `^` markers). */
export class JmesPathSyntaxError extends JmesPathError {
  constructor(
    message: string,
    readonly expression: string,
    readonly offset: number,
  ) {
    super("syntax", message);
    this.name = "JmesPathSyntaxError";
  }

  /** The expression with a `^` under the offending position, as go-jmespath's HighlightLocation. */
  highlight(): string {
    return `${this.expression}\n${" ".repeat(Math.max(0, this.offset))}^`;
  }
}

/** go-jmespath's `SyntaxError: <msg>`. */
export function syntaxError(msg: string, expression: string, offset: number): JmesPathSyntaxError {
  return new JmesPathSyntaxError(`SyntaxError: ${msg}`, expression, offset);
}

/** An error go-jmespath returns during parsing without the `SyntaxError:` prefix (JSON, Atoi). */
export function rawSyntaxError(msg: string, expression: string, offset: number): JmesPathSyntaxError {
  return new JmesPathSyntaxError(msg, expression, offset);
}

/** Kyverno's fork: a field access on a map that lacks the key. */
export function unknownKeyError(key: string): JmesPathError {
  return new JmesPathError("unknown-key", `Unknown key "${key}" in path`);
}

export function limitError(message: string): JmesPathError {
  return new JmesPathError("limit", message);
}

export function isLimitError(e: unknown): boolean {
  return e instanceof JmesPathError && e.kind === "limit";
}

export function isUnknownKeyError(e: unknown): boolean {
  return e instanceof JmesPathError && e.kind === "unknown-key";
}

/**
 * Errors that are not `JmesPathError` (a function's bug, stack exhaustion on hostile data) are
 * turned into one, so callers only ever see the documented error type.
 */
export function normalizeError(e: unknown): JmesPathError {
  if (e instanceof JmesPathError) return e;
  if (e instanceof RangeError) {
    return limitError(
      `evaluation exceeded the engine's resources (${e.message}); the data or expression is too large or too deeply nested`,
    );
  }
  const message = e instanceof Error ? e.message : String(e);
  return new JmesPathError("function", message);
}

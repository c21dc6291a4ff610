/** cel-js errors in cel-go's words and layout, so users read what Kyverno would print. */
import type { CelCompileError } from "./types.js";

interface CelJsError {
  readonly name?: string;
  readonly code?: string;
  readonly summary?: string;
  readonly message?: string;
  readonly node?: { readonly pos?: number };
  readonly range?: { readonly start: number };
}

export function asCelJsError(e: unknown): CelJsError {
  return typeof e === "object" && e !== null ? e : { message: String(e) };
}

/** The 0-based offset an error points at. */
export function errorOffset(e: CelJsError): number {
  return e.node?.pos ?? e.range?.start ?? 0;
}

/** cel-go's text for a cel-js error code; `declared` tells whether a function name exists at all. */
export function celGoText(e: CelJsError, declared: (name: string) => boolean): string {
  const summary = e.summary ?? firstLine(e.message ?? "error");
  if (e.code === "unknown_variable") {
    const name = /Unknown variable: (\S+)/.exec(summary)?.[1];
    if (name !== undefined) return `undeclared reference to '${name}' (in container '')`;
  }
  if (e.code === "no_matching_overload") {
    const name = /^found no matching overload for '(?:[^()']*\.)?([A-Za-z_]\w*)\(/.exec(summary)?.[1];
    if (name !== undefined && !declared(name)) return `undeclared reference to '${name}' (in container '')`;
  }
  if (e.name === "ParseError") return `Syntax error: ${summary}`;
  return summary;
}

/** `ERROR: <input>:L:C: text` and the source line with a caret, as cel-go's issues.Err() prints. */
export function compileError(expression: string, offset: number, text: string): CelCompileError {
  const before = expression.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const column = offset - lineStart + 1;
  const source = expression.split("\n")[line - 1] ?? "";
  const caret = `${".".repeat(Math.max(0, column - 1))}^`;
  const message = `ERROR: <input>:${line}:${column}: ${text}\n | ${source}\n | ${caret}`;
  return { kind: "cel-compile", message, line, column };
}

function firstLine(s: string): string {
  return s.split("\n")[0] ?? s;
}

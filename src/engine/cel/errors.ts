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

/**
 * cel-go's text for an error cel-js raised while evaluating (cel-go v0.30: common/decls
 * `MaybeNoSuchOverload`, the standard library's singleton operators, interpreter/attributes.go), so
 * a runtime error reads as Kyverno prints it:
 * - a function no overload of which takes the arguments: `no such overload: fn(types)`, the
 *   receiver first; a singleton function of the standard library (`size`, `matches`) names itself only;
 * - an operator, `&&`/`||` on a value that is not a bool, a ternary, or a macro whose predicate is
 *   not a bool (cel-go expands them to `&&`, `||` and `?:`): `no such overload`;
 * - a list index past the end: `index out of bounds: N`; a missing key: `no such key: k`;
 * - a macro over a value that is not a list or map: `got 'types.Null', expected iterable type`.
 */
export function celGoRuntimeText(e: CelJsError): string {
  const summary = e.summary ?? firstLine(e.message ?? "error");
  switch (e.code) {
    case "no_such_overload":
    case "invalid_logical_operand":
    case "invalid_condition_type":
      return "no such overload";
    case "index_out_of_bounds": {
      const index = /index (-?\d+)/.exec(summary)?.[1];
      return index !== undefined ? `index out of bounds: ${index}` : summary;
    }
    case "no_matching_overload":
      return callText(summary) ?? summary;
  }
  const range = /^Expression of type '(.*)' cannot be range of a comprehension/.exec(summary)?.[1];
  if (range !== undefined) return `got '${GO_VALUE_TYPES[range] ?? range}', expected iterable type`;
  return summary.replace(/^No such key: /, "no such key: ");
}

/** The Go types of cel-go's values, as its comprehension error prints them (`got '%T'`). */
const GO_VALUE_TYPES: Readonly<Record<string, string>> = {
  null: "types.Null",
  int: "types.Int",
  uint: "types.Uint",
  double: "types.Double",
  string: "types.String",
  bool: "types.Bool",
  bytes: "types.Bytes",
  "google.protobuf.Timestamp": "types.Timestamp",
  "google.protobuf.Duration": "types.Duration",
};

/** Standard functions cel-go binds once for every overload: a call no overload takes names the function only. */
const SINGLETON_FUNCTIONS: ReadonlySet<string> = new Set(["size", "matches"]);
/** Types whose values take receiver calls in cel-go: a singleton function on them answers plain `no such overload`. */
const RECEIVER_TYPES: ReadonlySet<string> = new Set([
  "string",
  "google.protobuf.Timestamp",
  "google.protobuf.Duration",
]);

function callText(summary: string): string | undefined {
  const call = /^found no matching overload for '(.*)'$/.exec(summary)?.[1];
  const parts = call === undefined ? null : /^(?:(.+)\.)?([A-Za-z_][\w]*)\((.*)\)$/.exec(call);
  if (parts === null) return undefined;
  const [, receiver, name = "", args = ""] = parts;
  const types = [...(receiver !== undefined ? [receiver] : []), ...topLevel(args)].map(celGoType);
  if (SINGLETON_FUNCTIONS.has(name))
    return RECEIVER_TYPES.has(types[0] ?? "") ? "no such overload" : `no such overload: ${name}`;
  return `no such overload: ${name}(${types.join(", ")})`;
}

/** `list<int>`, `map<dyn, dyn>`, `dyn<string>`, `null` as cel-go names a runtime type: list, map, string, null_type. */
function celGoType(type: string): string {
  const t = type.trim();
  const dyn = /^dyn<(.*)>$/.exec(t)?.[1];
  if (dyn !== undefined) return celGoType(dyn);
  if (t === "null") return "null_type";
  const generic = /^(list|map|optional)</.exec(t)?.[1];
  if (generic === "optional") return "optional_type";
  return generic ?? t;
}

/** A comma-separated argument list split at its top level (`map<dyn, dyn>, int` is two). */
function topLevel(args: string): string[] {
  if (args.trim() === "") return [];
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < args.length; i++) {
    const c = args[i];
    if (c === "<") depth++;
    else if (c === ">") depth--;
    else if (c === "," && depth === 0) {
      out.push(args.slice(start, i));
      start = i + 1;
    }
  }
  out.push(args.slice(start));
  return out;
}

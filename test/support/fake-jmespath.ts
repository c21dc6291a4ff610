/**
 * A tiny stand-in for the JMESPath interpreter, for tests: dotted paths (`a.b."c-d"[0]`), `@`,
 * `'string'` and `` `json` `` literals, and `x || y`. A missing key throws Kyverno's
 * `Unknown key "x" in path`; anything else it cannot read is a syntax error. It counts compiles.
 */
import { isObject, type JsonObject, type JsonValue } from "../../src/engine/api/json.js";
import type { Operation } from "../../src/engine/api/resource.js";
import {
  JmesPathError,
  type CompiledExpression,
  type FunctionDef,
  type JmesPathEngine,
} from "../../src/engine/jmespath/types.js";
import type { EnginePorts } from "../../src/engine/ports.js";
import { ExpressionCache } from "../../src/engine/variables/expression-cache.js";
import type { SubstitutionScope } from "../../src/engine/variables/types.js";

type Eval = (data: JsonValue) => JsonValue;

function splitOr(expr: string): string[] {
  const parts: string[] = [];
  let quote = "";
  let last = 0;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i] ?? "";
    if (quote !== "") {
      if (ch === quote) quote = "";
    } else if (ch === "'" || ch === '"' || ch === "`") quote = ch;
    else if (ch === "|" && expr[i + 1] === "|") {
      parts.push(expr.slice(last, i));
      last = i + 2;
      i++;
    }
  }
  parts.push(expr.slice(last));
  return parts.map((p) => p.trim());
}

const SEGMENT = /^(?:([A-Za-z_][A-Za-z0-9_]*)|"((?:[^"\\]|\\.)*)")((?:\[\d+\])*)(?:\.|$)/;

function compilePath(expr: string): Eval {
  const steps: (string | number)[] = [];
  let rest = expr;
  while (rest !== "") {
    const m = SEGMENT.exec(rest);
    if (m === null)
      throw new JmesPathError("syntax", `SyntaxError: Unexpected token at the end of the expression: ${rest}`);
    steps.push(m[1] ?? (JSON.parse(`"${m[2] ?? ""}"`) as string));
    for (const idx of (m[3] ?? "").matchAll(/\[(\d+)\]/g)) steps.push(Number(idx[1]));
    rest = rest.slice(m[0].length);
    if (m[0].endsWith(".") && rest === "") throw new JmesPathError("syntax", "SyntaxError: Expected identifier");
  }
  return (data) => {
    let cur: JsonValue = data;
    for (const step of steps) {
      if (typeof step === "number") cur = Array.isArray(cur) ? (cur[step] ?? null) : null;
      else if (isObject(cur)) {
        if (!Object.hasOwn(cur, step)) throw new JmesPathError("unknown-key", `Unknown key "${step}" in path`);
        cur = cur[step] ?? null;
      } else cur = null;
    }
    return cur;
  };
}

function compileOperand(expr: string): Eval {
  if (expr === "@") return (data) => data;
  if (/^'[^']*'$/.test(expr)) return () => expr.slice(1, -1);
  if (/^`.*`$/s.test(expr)) {
    const value = JSON.parse(expr.slice(1, -1)) as JsonValue;
    return () => value;
  }
  if (expr === "") throw new JmesPathError("syntax", "SyntaxError: Incomplete expression");
  return compilePath(expr);
}

function falsy(v: JsonValue): boolean {
  return (
    v === null ||
    v === false ||
    v === "" ||
    (Array.isArray(v) && v.length === 0) ||
    (isObject(v) && Object.keys(v).length === 0)
  );
}

export interface FakeJmesPath extends JmesPathEngine {
  readonly compiled: string[];
}

export function fakeJmesPath(): FakeJmesPath {
  const compiled: string[] = [];
  return {
    compiled,
    functions: new Map<string, FunctionDef>(),
    compile(source: string): CompiledExpression {
      compiled.push(source);
      const operands = splitOr(source).map(compileOperand);
      return {
        source,
        search(data: JsonValue): JsonValue {
          let result: JsonValue = null;
          for (const [i, operand] of operands.entries()) {
            try {
              result = operand(data);
            } catch (e) {
              if (operands.length === 1 || !(e instanceof JmesPathError && e.kind === "unknown-key")) throw e;
              result = null;
            }
            if (!falsy(result) || i === operands.length - 1) return result;
          }
          return result;
        },
      };
    },
  };
}

const noPorts = {} as EnginePorts;

/** A scope over `data` with a fresh fake interpreter and cache. */
export function fakeScope(
  data: JsonObject,
  extra: { operation?: Operation; target?: boolean; basePath?: string } = {},
): SubstitutionScope & { jmespath: FakeJmesPath } {
  const jmespath = fakeJmesPath();
  return { data, jmespath, fnctx: { ports: noPorts }, cache: new ExpressionCache(jmespath), ...extra };
}

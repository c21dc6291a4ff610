/**
 * The contract between the JMESPath interpreter and the function families registered into it.
 * Kyverno runs its fork of go-jmespath: the original JMESPath spec, plus custom functions that can
 * replace built-ins (Kyverno's `sum` does), plus an "Unknown key" error on missing map keys.
 */
import type { JsonValue } from "../api/json.js";
import type { EnginePorts } from "../ports.js";
import type { FunctionMemo } from "./function-memo.js";

/** Argument and return types, as `kyverno jp function` prints them. */
export type JmesType =
  "any" | "string" | "number" | "boolean" | "array" | "object" | "null" | "expref" | "array[string]" | "array[number]";

/** An `&expr` argument, for sort_by / max_by / map and the like. */
export interface ExpressionRef {
  readonly kind: "expref";
  evaluate(data: JsonValue): JsonValue;
}

export type FunctionArg = JsonValue | ExpressionRef;

export interface ArgSpec {
  readonly name?: string;
  /** Accepted types; a value of another type gives Kyverno's invalid-type error. */
  readonly types: readonly JmesType[];
  /** The last argument may repeat (e.g. merge, not_null). */
  readonly variadic?: boolean;
  readonly optional?: boolean;
}

export interface FunctionContext {
  readonly ports: EnginePorts;
  /**
   * Set by the interpreter during evaluation. A function that builds large arrays or strings
   * charges its work here, so hostile input hits the evaluation limit instead of exhausting memory.
   */
  readonly budget?: EvaluationBudget;
  /** Answers of functions of their text alone, kept for the request being evaluated (function-memo.ts); none: computed each time. */
  readonly memo?: FunctionMemo | undefined;
}

/** The evaluation budget of one `search`. `charge` throws `JmesPathError` kind "limit" when spent. */
export interface EvaluationBudget {
  charge(units: number): void;
  /** The longest string a function may return. */
  readonly maxStringLength: number;
}

export interface FunctionDef {
  readonly name: string;
  readonly args: readonly ArgSpec[];
  readonly returns: JmesType;
  /** One line, for `bylaw jp function`. */
  readonly description: string;
  /** Arguments have been type-checked against `args` before the call. Throw `JmesPathError` to fail. */
  call(args: readonly FunctionArg[], ctx: FunctionContext): JsonValue;
}

/** V8's limit on the frames an Error captures (Node's engine); another engine has none and ignores it. */
const errorFrames: ErrorConstructor & { stackTraceLimit?: number | undefined } = Error;

/** A failure while evaluating: unknown key, wrong argument type, a function's own error. */

export class JmesPathError extends Error {
  readonly kind:
    "syntax" | "unknown-key" | "invalid-type" | "invalid-arity" | "unknown-function" | "function" | "limit";

  constructor(kind: JmesPathError["kind"], message: string) {
    // Thrown in the normal course of evaluation (a missing key inside a foreach element is one) and
    // reported by its message alone: no stack trace is taken, which was most of its cost.
    const limit = errorFrames.stackTraceLimit;
    errorFrames.stackTraceLimit = 0;
    super(message);
    errorFrames.stackTraceLimit = limit;
    this.kind = kind;
    this.name = "JmesPathError";
  }
}

/** An expression parsed once (at policy load) and evaluated many times. */
export interface CompiledExpression {
  readonly source: string;
  /** Throws `JmesPathError` on an evaluation failure (e.g. `Unknown key "x" in path`). */
  search(data: JsonValue, ctx: FunctionContext): JsonValue;
}

/** An interpreter with a fixed function table. `compile` throws `JmesPathError` of kind "syntax". */
export interface JmesPathEngine {
  compile(expression: string): CompiledExpression;
  readonly functions: ReadonlyMap<string, FunctionDef>;
}

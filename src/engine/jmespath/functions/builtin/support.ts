/**
 * Helpers shared by the built-in functions: go-jmespath's error texts and budget charging.
 */
import { isLimitError, isUnknownKeyError } from "../../errors.js";
import { JmesPathError, type ExpressionRef, type FunctionContext } from "../../types.js";
import type { JsonValue } from "../../../api/json.js";

export function fnError(message: string): JmesPathError {
  return new JmesPathError("function", message);
}

/** Counts `units` of work against the evaluation budget, when the interpreter provides one. */
export function charge(ctx: FunctionContext, units: number): void {
  ctx.budget?.charge(units);
}

/** Evaluates an `&expr` on one element; a missing key gives null, as the fork's built-ins do. */
export function evalOrNull(ref: ExpressionRef, data: JsonValue): JsonValue {
  try {
    return ref.evaluate(data);
  } catch (e) {
    if (isUnknownKeyError(e)) return null;
    throw e;
  }
}

/** Evaluates an `&expr`; any failure other than a limit becomes `message`. */
export function evalOrFail(ref: ExpressionRef, data: JsonValue, message: string): JsonValue {
  try {
    return ref.evaluate(data);
  } catch (e) {
    if (isLimitError(e)) throw e;
    throw fnError(message);
  }
}

export function isExpressionRef(v: unknown): v is ExpressionRef {
  return (
    typeof v === "object" &&
    v !== null &&
    (v as { kind?: unknown }).kind === "expref" &&
    typeof (v as { evaluate?: unknown }).evaluate === "function"
  );
}

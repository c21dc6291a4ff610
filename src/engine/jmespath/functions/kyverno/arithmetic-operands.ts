/**
 * Kyverno's arithmetic operands (`pkg/engine/jmespath/arithmetic.go`). A JSON number is a scalar;
 * a string is read as a Kubernetes quantity first and as a Go duration second, so `'1m'` is one
 * milli-unit, not a minute. Results: quantities and durations print as strings, scalars as numbers.
 */
import type { JsonValue } from "../../../api/json.js";
import { durationSeconds, float64ToInt64, formatDuration, parseDuration, wrapInt64 } from "../../../values/duration.js";
import {
  addQuantities,
  divideQuantitiesTruncated,
  formatQuantity,
  multiplyQuantities,
  parseQuantity,
  quantityFromInt,
  quantityToFloat64,
  subtractQuantities,
  type Quantity,
} from "../../../values/quantity.js";
import { functionError, goError, nonIntModuloError, typeMismatchError, zeroDivisionError } from "./errors.js";
import { goFormatFloat as formatFloatV } from "../../../go/format-value.js";

export type Operand =
  | { readonly kind: "scalar"; readonly value: number }
  | { readonly kind: "quantity"; readonly value: Quantity }
  | { readonly kind: "duration"; readonly value: bigint };

function parseOperand(v: JsonValue): Operand | undefined {
  if (typeof v === "number") return { kind: "scalar", value: v };
  if (typeof v !== "string") return undefined;
  const q = parseQuantity(v);
  if (q !== undefined) return { kind: "quantity", value: q };
  const d = parseDuration(v);
  if (d !== undefined) return { kind: "duration", value: d };
  return undefined;
}

/** Both operands, or Kyverno's "invalid operands" error naming the calling function. */
export function parseOperands(name: string, a: JsonValue, b: JsonValue): [Operand, Operand] {
  const x = parseOperand(a);
  const y = parseOperand(b);
  if (x === undefined || y === undefined) throw functionError(name, "invalid operands");
  return [x, y];
}

/** A scalar as Kyverno turns it into a quantity: `resource.ParseQuantity(fmt.Sprintf("%v", f))`. */
function scalarQuantity(f: number): Quantity {
  const q = parseQuantity(formatFloatV(f));
  if (q === undefined) {
    throw goError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
  return q;
}

/** Go's `time.Duration(seconds * float64(time.Second))`. */
function durationFromSeconds(seconds: number): string {
  return formatDuration(float64ToInt64(seconds * 1e9));
}

/** Runs exact quantity arithmetic; sizes beyond what can be computed become a function error. */
function exact(name: string, f: () => Quantity): string {
  try {
    return formatQuantity(f());
  } catch (e) {
    if (e instanceof RangeError) throw functionError(name, e.message);
    throw e;
  }
}

export function add(name: string, x: Operand, y: Operand): JsonValue {
  if (x.kind === "quantity" && y.kind === "quantity") return exact(name, () => addQuantities(x.value, y.value));
  if (x.kind === "duration" && y.kind === "duration") return formatDuration(wrapInt64(x.value + y.value));
  if (x.kind === "scalar" && y.kind === "scalar") return x.value + y.value;
  throw typeMismatchError(name);
}

export function subtract(x: Operand, y: Operand): JsonValue {
  if (x.kind === "quantity" && y.kind === "quantity")
    return exact("subtract", () => subtractQuantities(x.value, y.value));
  if (x.kind === "duration" && y.kind === "duration") return formatDuration(wrapInt64(x.value - y.value));
  if (x.kind === "scalar" && y.kind === "scalar") return x.value - y.value;
  throw typeMismatchError("subtract");
}

export function multiply(x: Operand, y: Operand): JsonValue {
  if (x.kind === "scalar" && y.kind !== "scalar") return multiply(y, x);
  if (y.kind !== "scalar") throw typeMismatchError("multiply");
  const s = y.value;
  switch (x.kind) {
    case "scalar":
      return x.value * s;
    case "quantity":
      return exact("multiply", () => multiplyQuantities(x.value, scalarQuantity(s), x.value.format));
    case "duration":
      return durationFromSeconds(durationSeconds(x.value) * s);
  }
}

export function divide(x: Operand, y: Operand): JsonValue {
  if (x.kind === "quantity" && y.kind === "quantity") {
    const divisor = quantityToFloat64(y.value);
    if (divisor === 0) throw zeroDivisionError("divide");
    return quantityToFloat64(x.value) / divisor;
  }
  if (x.kind === "duration" && y.kind === "duration") {
    const divisor = durationSeconds(y.value);
    if (divisor === 0) throw zeroDivisionError("divide");
    return durationSeconds(x.value) / divisor;
  }
  if (y.kind !== "scalar") throw typeMismatchError("divide");
  if (y.value === 0) throw zeroDivisionError("divide");
  switch (x.kind) {
    case "scalar":
      return x.value / y.value;
    case "quantity": {
      const q = scalarQuantity(y.value);
      const scale = Math.max(x.value.scale, q.scale);
      return exact("divide", () => divideQuantitiesTruncated(x.value, q, scale, x.value.format));
    }
    case "duration":
      return durationFromSeconds(durationSeconds(x.value) / y.value);
  }
}

/** Go's `int64(f)` plus the check that nothing was lost. */
function exactInt(f: number): bigint | undefined {
  const i = float64ToInt64(f);
  return Number(i) === f ? i : undefined;
}

export function modulo(x: Operand, y: Operand): JsonValue {
  if (x.kind === "quantity" && y.kind === "quantity") {
    const i1 = exactInt(quantityToFloat64(x.value));
    const i2 = exactInt(quantityToFloat64(y.value));
    if (i1 === undefined || i2 === undefined) throw nonIntModuloError("modulo");
    if (i2 === 0n) throw zeroDivisionError("modulo");
    return exact("modulo", () => quantityFromInt(i1 % i2, x.value.format));
  }
  if (x.kind === "duration" && y.kind === "duration") {
    if (y.value === 0n) throw zeroDivisionError("modulo");
    return formatDuration(x.value % y.value);
  }
  if (x.kind === "scalar" && y.kind === "scalar") {
    const i1 = exactInt(x.value);
    const i2 = exactInt(y.value);
    if (i1 === undefined || i2 === undefined) throw nonIntModuloError("modulo");
    if (i2 === 0n) throw zeroDivisionError("modulo");
    return Number(i1 % i2);
  }
  throw typeMismatchError("modulo");
}

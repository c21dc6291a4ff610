/** Arithmetic over numbers, quantities and durations; `sum` replaces the JMESPath built-in. */
import type { JsonValue } from "../../../api/json.js";
import type { FunctionArg, FunctionDef } from "../../types.js";
import { jsonArg, numberArg } from "./args.js";
import { add, divide, modulo, multiply, parseOperands, subtract, type Operand } from "./arithmetic-operands.js";
import { functionError, typeMismatchError } from "./errors.js";

function binary(name: string, description: string, op: (x: Operand, y: Operand) => JsonValue): FunctionDef {
  return {
    name,
    args: [{ types: ["any"] }, { types: ["any"] }],
    returns: "any",
    description,
    call: (args: readonly FunctionArg[]) => {
      const [x, y] = parseOperands(name, jsonArg(name, args, 0), jsonArg(name, args, 1));
      return op(x, y);
    },
  };
}

/** Go's `math.Round`: half away from zero. */
function roundHalfAway(x: number): number {
  if (!Number.isFinite(x)) return x;
  const t = Math.trunc(x);
  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
}

/** Kyverno's `intNumber` check on the digits argument of `round`. */
function isGoInt(n: number): boolean {
  return Number.isFinite(n) && Math.trunc(n) === n && Math.abs(n) < 2 ** 63;
}

export const arithmeticFunctions: readonly FunctionDef[] = [
  binary("add", "does arithmetic addition of two specified values of numbers, quantities, and durations", (x, y) =>
    add("add", x, y),
  ),
  {
    name: "sum",
    args: [{ types: ["array"] }],
    returns: "any",
    description: "does arithmetic addition of specified array of values of numbers, quantities, and durations",
    call: (args) => {
      const items = jsonArg("sum", args, 0);
      if (!Array.isArray(items)) throw typeMismatchError("sum");
      const [first, ...rest] = items;
      if (first === undefined) throw functionError("sum", "at least one element in the array is required");
      let result: JsonValue = first;
      for (const item of rest) {
        const [x, y] = parseOperands("sum", result, item);
        result = add("sum", x, y);
      }
      return result;
    },
  },
  binary(
    "subtract",
    "does arithmetic subtraction of two specified values of numbers, quantities, and durations",
    subtract,
  ),
  binary(
    "multiply",
    "does arithmetic multiplication of two specified values of numbers, quantities, and durations",
    multiply,
  ),
  binary("divide", "divisor must be non zero", divide),
  binary("modulo", "divisor must be non-zero, arguments must be integers", modulo),
  {
    name: "round",
    args: [{ types: ["number"] }, { types: ["number"] }],
    returns: "number",
    description: "does roundoff to upto the given decimal places",
    call: (args) => {
      const value = numberArg("round", args, 0);
      const digits = numberArg("round", args, 1);
      if (!isGoInt(digits)) throw functionError("round", "Non-integer argument(s) passed for round off");
      // Kyverno formats this message without its arguments, so Go prints %!d(MISSING).
      if (digits < 0) throw functionError("round", "%!d(MISSING) argument is out of bounds (%!d(MISSING))");
      const shift = Number(`1e${digits}`);
      return roundHalfAway(value * shift) / shift;
    },
  },
];

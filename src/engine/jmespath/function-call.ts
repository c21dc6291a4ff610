/**
 * Argument checking before a function runs, with go-jmespath's error texts:
 * `incorrect number of args`, `Invalid arity.` and
 * `Invalid type for: <nil>, expected: []jmespath.JpType{"string"}`.
 */
import { isObject } from "../api/json.js";
import { isExprRef } from "./eval-state.js";
import { goFormatValue } from "../go/format-value.js";
import { JmesPathError, type ArgSpec, type FunctionArg, type FunctionDef, type JmesType } from "./types.js";

/** A function prepared once per engine: its arity bounds and argument specs. */
export interface BoundFunction {
  readonly def: FunctionDef;
  readonly specs: readonly ArgSpec[];
  readonly minArgs: number;
  readonly maxArgs: number;
  readonly variadic: boolean;
}

export function bindFunction(def: FunctionDef): BoundFunction {
  const specs = def.args;
  const last = specs[specs.length - 1];
  const variadic = last?.variadic === true;
  let minArgs = 0;
  for (const s of specs) if (s.optional !== true) minArgs++;
  return { def, specs, minArgs, maxArgs: variadic ? Number.POSITIVE_INFINITY : specs.length, variadic };
}

function allOf(v: FunctionArg, pred: (x: unknown) => boolean): boolean {
  return Array.isArray(v) && v.every(pred);
}

/** Whether `v` is of JMESPath type `t` (go-jmespath's typeCheck). */
function matchesType(v: FunctionArg, t: JmesType): boolean {
  switch (t) {
    case "any":
      return true;
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number";
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
    case "array":
      return Array.isArray(v);
    case "object":
      return isObject(v) && !isExprRef(v);
    case "expref":
      return isExprRef(v);
    case "array[string]":
      return allOf(v, (x) => typeof x === "string");
    case "array[number]":
      return allOf(v, (x) => typeof x === "number");
  }
}

function invalidType(arg: FunctionArg, types: readonly JmesType[]): JmesPathError {
  const shown = isExprRef(arg) ? "{}" : goFormatValue(arg);
  const expected = types.map((t) => `"${t}"`).join(", ");
  return new JmesPathError("invalid-type", `Invalid type for: ${shown}, expected: []jmespath.JpType{${expected}}`);
}

/**
 * Throws unless `args` fit the function's specs. As in go-jmespath, a function declared with no
 * arguments accepts any, and too few arguments for a variadic function is `Invalid arity.`.
 * Unlike go-jmespath, variadic arguments are type-checked too (Go would crash on a non-object
 * passed to `merge`).
 */
export function checkArguments(fn: BoundFunction, args: readonly FunctionArg[]): void {
  const { specs } = fn;
  if (specs.length === 0) return;
  const n = args.length;
  if (n < fn.minArgs || n > fn.maxArgs) {
    throw new JmesPathError("invalid-arity", fn.variadic ? "Invalid arity." : "incorrect number of args");
  }
  for (let i = 0; i < n; i++) {
    const spec = specs[i < specs.length ? i : specs.length - 1];
    const arg = args[i] ?? null;
    if (spec === undefined) continue;
    const types = spec.types;
    let ok = false;
    for (let k = 0; k < types.length && !ok; k++) ok = matchesType(arg, types[k] ?? "any");
    if (!ok) throw invalidType(arg, types);
  }
}

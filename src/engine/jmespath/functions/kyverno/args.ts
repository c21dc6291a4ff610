/** Typed access to already type-checked function arguments. */
import type { JsonValue } from "../../../api/json.js";
import type { FunctionArg } from "../../types.js";
import { argumentTypeError } from "./errors.js";

function arg(args: readonly FunctionArg[], index: number): FunctionArg {
  return args[index] ?? null;
}

function isExpref(v: FunctionArg): boolean {
  return (
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    (v as { kind?: unknown }).kind === "expref" &&
    typeof (v as { evaluate?: unknown }).evaluate === "function"
  );
}

/** The argument as a JSON value (an expression reference is a type error). */
export function jsonArg(name: string, args: readonly FunctionArg[], index: number): JsonValue {
  const v = arg(args, index);
  if (isExpref(v)) throw argumentTypeError(name, index + 1, "JSON value");
  return v as JsonValue;
}

export function stringArg(name: string, args: readonly FunctionArg[], index: number): string {
  const v = arg(args, index);
  if (typeof v !== "string") throw argumentTypeError(name, index + 1, "String");
  return v;
}

export function numberArg(name: string, args: readonly FunctionArg[], index: number): number {
  const v = arg(args, index);
  if (typeof v !== "number") throw argumentTypeError(name, index + 1, "Number");
  return v;
}

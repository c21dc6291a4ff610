/** String built-ins: contains, starts_with, ends_with, join. */
import type { JsonValue } from "../../../api/json.js";
import { limitError } from "../../errors.js";
import type { FunctionArg, FunctionDef } from "../../types.js";
import { charge, fnError, isExpressionRef } from "./support.js";

/**
 * Go's `==` between two `interface{}` values, which `contains` uses on array items. Two arrays or
 * two objects cannot be compared in Go: the comparison panics, reported here as an error.
 */
function goInterfaceEqual(a: FunctionArg, b: FunctionArg): boolean {
  if (Array.isArray(a) && Array.isArray(b)) throw fnError("runtime error: comparing uncomparable type []interface {}");
  const aObj = typeof a === "object" && a !== null && !Array.isArray(a);
  const bObj = typeof b === "object" && b !== null && !Array.isArray(b);
  if (aObj && bObj) {
    if (isExpressionRef(a) || isExpressionRef(b)) return a === b;
    throw fnError("runtime error: comparing uncomparable type map[string]interface {}");
  }
  return a === b;
}

export const stringFunctions: readonly FunctionDef[] = [
  {
    name: "contains",
    args: [
      { name: "subject", types: ["array", "string"] },
      { name: "search", types: ["any"] },
    ],
    returns: "boolean",
    description: "Whether a string contains a substring, or an array contains a value (compared with Go's ==).",
    call: ([subject, search], ctx) => {
      if (typeof subject === "string") return typeof search === "string" && subject.includes(search);
      const items = subject as JsonValue[];
      charge(ctx, items.length);
      for (const item of items) if (goInterfaceEqual(item, search ?? null)) return true;
      return false;
    },
  },
  {
    name: "ends_with",
    args: [
      { name: "subject", types: ["string"] },
      { name: "suffix", types: ["string"] },
    ],
    returns: "boolean",
    description: "Whether the string ends with the suffix.",
    call: ([s, suffix]) => (s as string).endsWith(suffix as string),
  },
  {
    name: "starts_with",
    args: [
      { name: "subject", types: ["string"] },
      { name: "prefix", types: ["string"] },
    ],
    returns: "boolean",
    description: "Whether the string starts with the prefix.",
    call: ([s, prefix]) => (s as string).startsWith(prefix as string),
  },
  {
    name: "join",
    args: [
      { name: "glue", types: ["string"] },
      { name: "values", types: ["array[string]"] },
    ],
    returns: "string",
    description: "Joins an array of strings with a separator.",
    call: ([glue, values], ctx) => {
      const parts = values as string[];
      const sep = glue as string;
      let length = sep.length * Math.max(0, parts.length - 1);
      for (const p of parts) length += p.length;
      const max = ctx.budget?.maxStringLength ?? Number.POSITIVE_INFINITY;
      if (length > max) throw limitError(`join would produce a string of ${length} characters; the limit is ${max}`);
      charge(ctx, parts.length);
      return parts.join(sep);
    },
  },
];

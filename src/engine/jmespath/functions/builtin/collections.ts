/** Array and object built-ins: length, keys, values, merge, reverse, sort, max, min. */
import type { JsonObject, JsonValue } from "../../../api/json.js";
import { codePointLength, compareCodePoints, reverseCodePoints } from "../../../go/strings.js";
import { setOwn } from "../../../api/set-own.js";
import type { FunctionDef } from "../../types.js";
import { charge } from "./support.js";

/** Go's sort.Float64Slice order: ascending, NaN first. */
function compareFloats(a: number, b: number): number {
  const less = (x: number, y: number): boolean => x < y || (Number.isNaN(x) && !Number.isNaN(y));
  return less(a, b) ? -1 : less(b, a) ? 1 : 0;
}

/** max/min over numbers or strings; `better(candidate, best)` says whether to replace. */
function extreme(values: JsonValue[], wantMax: boolean): JsonValue {
  if (values.length === 0) return null;
  let best = values[0] as number | string;
  for (let i = 1; i < values.length; i++) {
    const v = values[i] as number | string;
    const cmp =
      typeof v === "number"
        ? v > (best as number)
          ? 1
          : v < (best as number)
            ? -1
            : 0
        : compareCodePoints(v, best as string);
    if (wantMax ? cmp > 0 : cmp < 0) best = v;
  }
  return best;
}

export const collectionFunctions: readonly FunctionDef[] = [
  {
    name: "length",
    args: [{ name: "subject", types: ["string", "array", "object"] }],
    returns: "number",
    description: "The number of code points of a string, elements of an array, or keys of an object.",
    call: ([v]) => {
      if (typeof v === "string") return codePointLength(v);
      if (Array.isArray(v)) return v.length;
      return Object.keys(v as JsonObject).length;
    },
  },
  {
    name: "keys",
    args: [{ name: "object", types: ["object"] }],
    returns: "array[string]",
    // Go iterates maps in random order; Bylaw keeps the object's own key order.
    description: "The keys of an object.",
    call: ([v], ctx) => {
      const keys = Object.keys(v as JsonObject);
      charge(ctx, keys.length);
      return keys;
    },
  },
  {
    name: "values",
    args: [{ name: "object", types: ["object"] }],
    returns: "array",
    description: "The values of an object.",
    call: ([v], ctx) => {
      const values = Object.values(v as JsonObject);
      charge(ctx, values.length);
      return values;
    },
  },
  {
    name: "merge",
    args: [{ name: "objects", types: ["object"], variadic: true }],
    returns: "object",
    description: "Merges objects; later keys win.",
    call: (args, ctx) => {
      const out: JsonObject = {};
      for (const arg of args) {
        const obj = arg as JsonObject;
        for (const key in obj) setOwn(out, key, obj[key] ?? null);
        charge(ctx, Object.keys(obj).length);
      }
      return out;
    },
  },
  {
    name: "reverse",
    args: [{ name: "subject", types: ["array", "string"] }],
    returns: "any",
    description: "A string with its code points reversed, or an array with its elements reversed.",
    call: ([v], ctx) => {
      if (typeof v === "string") return reverseCodePoints(v);
      const items = v as JsonValue[];
      charge(ctx, items.length);
      return items.slice().reverse();
    },
  },
  {
    name: "sort",
    args: [{ name: "values", types: ["array[string]", "array[number]"] }],
    returns: "array",
    description: "Sorts an array of strings (by code point) or of numbers, stably.",
    call: ([v], ctx) => {
      const items = (v as (string | number)[]).slice();
      charge(ctx, items.length);
      if (typeof items[0] === "number") return (items as number[]).sort(compareFloats);
      return (items as string[]).sort(compareCodePoints);
    },
  },
  {
    name: "max",
    args: [{ name: "values", types: ["array[number]", "array[string]"] }],
    returns: "any",
    description: "The largest number or string of an array; null for an empty array.",
    call: ([v]) => extreme(v as JsonValue[], true),
  },
  {
    name: "min",
    args: [{ name: "values", types: ["array[number]", "array[string]"] }],
    returns: "any",
    description: "The smallest number or string of an array; null for an empty array.",
    call: ([v]) => extreme(v as JsonValue[], false),
  },
];

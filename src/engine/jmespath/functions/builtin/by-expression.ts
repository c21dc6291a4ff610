/** Built-ins that take an `&expr`: map, sort_by, max_by, min_by. */
import type { JsonValue } from "../../../api/json.js";
import { compareCodePoints } from "../../../go/strings.js";
import type { ExpressionRef, FunctionDef } from "../../types.js";
import { charge, evalOrFail, evalOrNull, fnError } from "./support.js";

const MIXED = "invalid type, must be number of string";

/** max_by / min_by: the first element's key decides whether keys are numbers or strings. */
function extremeBy(items: JsonValue[], ref: ExpressionRef, wantMax: boolean): JsonValue {
  if (items.length === 0) return null;
  const first = items[0] ?? null;
  if (items.length === 1) return first;
  const start = evalOrNull(ref, first);
  if (typeof start !== "number" && typeof start !== "string") throw fnError(MIXED);
  const kind = typeof start;
  let bestKey: number | string = start;
  let best = first;
  for (let i = 1; i < items.length; i++) {
    const item = items[i] ?? null;
    const key = evalOrNull(ref, item);
    if (typeof key !== kind) throw fnError(`invalid type, must be ${kind}`);
    const cmp =
      kind === "number" ? (key as number) - (bestKey as number) : compareCodePoints(key as string, bestKey as string);
    if (wantMax ? cmp > 0 : cmp < 0) {
      bestKey = key as number | string;
      best = item;
    }
  }
  return best;
}

export const expressionFunctions: readonly FunctionDef[] = [
  {
    name: "map",
    args: [
      { name: "expression", types: ["expref"] },
      { name: "elements", types: ["array"] },
    ],
    returns: "array",
    description: "Applies an expression to every element; a missing key gives null for that element.",
    call: ([ref, items], ctx) => {
      const list = items as JsonValue[];
      charge(ctx, list.length);
      return list.map((el) => evalOrNull(ref as ExpressionRef, el));
    },
  },
  {
    name: "sort_by",
    args: [
      { name: "elements", types: ["array"] },
      { name: "expression", types: ["expref"] },
    ],
    returns: "array",
    description: "Sorts an array stably by the number or string an expression gives for each element.",
    call: ([items, expr], ctx) => {
      const list = items as JsonValue[];
      if (list.length <= 1) return list;
      const ref = expr as ExpressionRef;
      const start = evalOrNull(ref, list[0] ?? null);
      if (typeof start !== "number" && typeof start !== "string") throw fnError(MIXED);
      const kind = typeof start;
      charge(ctx, list.length);
      const keyed = list.map((el, index) => {
        const key = evalOrFail(ref, el, "error in sort_by comparison");
        if (typeof key !== kind) throw fnError("error in sort_by comparison");
        return { key: key as number | string, index, el };
      });
      keyed.sort((a, b) => {
        const cmp =
          kind === "number"
            ? (a.key as number) < (b.key as number)
              ? -1
              : (b.key as number) < (a.key as number)
                ? 1
                : 0
            : compareCodePoints(a.key as string, b.key as string);
        return cmp !== 0 ? cmp : a.index - b.index;
      });
      return keyed.map((k) => k.el);
    },
  },
  {
    name: "max_by",
    args: [
      { name: "elements", types: ["array"] },
      { name: "expression", types: ["expref"] },
    ],
    returns: "any",
    description: "The element for which the expression gives the largest number or string.",
    call: ([items, ref]) => extremeBy(items as JsonValue[], ref as ExpressionRef, true),
  },
  {
    name: "min_by",
    args: [
      { name: "elements", types: ["array"] },
      { name: "expression", types: ["expref"] },
    ],
    returns: "any",
    description: "The element for which the expression gives the smallest number or string.",
    call: ([items, ref]) => extremeBy(items as JsonValue[], ref as ExpressionRef, false),
  },
];

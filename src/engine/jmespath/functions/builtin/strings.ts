/** String built-ins: contains, starts_with, ends_with, join. */
import type { JsonValue } from "../../../api/json.js";
import { limitError } from "../../errors.js";
import type { FunctionArg, FunctionDef } from "../../types.js";
import { goInterfaceEqual } from "../../../go/interface-equal.js";
import { charge, fnError } from "./support.js";

/** Go's `==` on two `interface{}` values, which `contains` uses on array items; a panic is an error. */
function itemEqual(a: FunctionArg, b: FunctionArg): boolean {
  const r = goInterfaceEqual(a, b);
  if (typeof r === "boolean") return r;
  throw fnError(r.panic);
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
      for (const item of items) if (itemEqual(item, search ?? null)) return true;
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

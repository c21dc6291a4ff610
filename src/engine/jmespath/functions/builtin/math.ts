/** Numeric built-ins: abs, avg, ceil, floor, sum. */
import type { FunctionDef } from "../../types.js";

function numbers(v: unknown): number[] {
  return v as number[];
}

export const mathFunctions: readonly FunctionDef[] = [
  {
    name: "abs",
    args: [{ name: "value", types: ["number"] }],
    returns: "number",
    description: "The absolute value of a number.",
    call: ([n]) => Math.abs(n as number),
  },
  {
    name: "avg",
    args: [{ name: "values", types: ["array[number]"] }],
    returns: "number",
    // An empty array gives NaN (0/0), as go-jmespath computes it.
    description: "The average of an array of numbers.",
    call: ([v]) => {
      const xs = numbers(v);
      let sum = 0;
      for (const x of xs) sum += x;
      return sum / xs.length;
    },
  },
  {
    name: "ceil",
    args: [{ name: "value", types: ["number"] }],
    returns: "number",
    description: "The smallest integer not less than the number.",
    call: ([n]) => Math.ceil(n as number),
  },
  {
    name: "floor",
    args: [{ name: "value", types: ["number"] }],
    returns: "number",
    description: "The largest integer not greater than the number.",
    call: ([n]) => Math.floor(n as number),
  },
  {
    name: "sum",
    args: [{ name: "values", types: ["array[number]"] }],
    returns: "number",
    description: "The sum of an array of numbers (0 for an empty array).",
    call: ([v]) => {
      let sum = 0;
      for (const x of numbers(v)) sum += x;
      return sum;
    },
  },
];

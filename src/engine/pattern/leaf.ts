/**
 * Scalar leaf matching (`pattern.Validate`): how one pattern value (bool, number, null, string)
 * judges one resource value. `undefined` stands for an absent key, which Kyverno sees as nil.
 */
import type { JsonPrimitive, JsonValue } from "../api/json.js";
import { isGoInt } from "./go-format.js";
import { goParseFloat as parseGoFloat } from "../go/parse-float.js";
import { parseGoInt } from "./go-parse.js";
import { compileStringPattern } from "./string-pattern.js";

export type LeafTest = (value: JsonValue | undefined) => boolean;

/** Compiles a scalar pattern value into a test of a resource value. */
export function compileLeaf(pattern: JsonPrimitive): LeafTest {
  if (pattern === null) return nilPattern;
  switch (typeof pattern) {
    case "boolean":
      return (v) => v === pattern;
    case "number":
      return isGoInt(pattern) ? intPattern(pattern) : floatPattern(pattern);
    case "string":
      return compileStringPattern(pattern);
  }
}

function nilPattern(v: JsonValue | undefined): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === "number") return v === 0;
  if (typeof v === "string") return v === "";
  if (typeof v === "boolean") return !v;
  return false;
}

function intPattern(p: number): LeafTest {
  const big = BigInt(p);
  return (v) => {
    if (typeof v === "number") return isGoInt(v) && v === p;
    if (typeof v === "string") return parseGoInt(v) === big;
    return false;
  };
}

function floatPattern(p: number): LeafTest {
  return (v) => {
    if (typeof v === "number") return !isGoInt(v) && v === p;
    if (typeof v === "string") return parseGoFloat(v) === p;
    return false;
  };
}

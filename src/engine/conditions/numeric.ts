/**
 * GreaterThan, GreaterThanOrEquals, LessThan, LessThanOrEquals (`numeric.go`).
 *
 * A number key takes a number, or a string that is a duration (the number is then seconds) or a
 * float. A string key is tried, in order, as: a duration on either side; a quantity on both sides;
 * a float (then compared as a number key); a semantic version against a semver string.
 * Anything else (bools, lists, maps, null) is false.
 *
 * Kyverno finds the handler case-insensitively but picks the comparison by the exact operator
 * name, so a mis-cased name (`greaterthan`) reaches this handler and always answers false.
 */
import type { JsonValue } from "../api/json.js";
import { durationSeconds } from "../values/duration.js";
import { compareQuantities, parseQuantity } from "../values/quantity.js";
import { compareSemver, parseSemver } from "../values/semver.js";
import { parseDurationPair } from "./duration-pair.js";
import { goParseFloat as parseGoFloat } from "../go/parse-float.js";
import type { OperatorFn } from "./types.js";

export type Comparison = "GreaterThan" | "GreaterThanOrEquals" | "LessThan" | "LessThanOrEquals";

/** The handler for one comparison; `exactName` is false when the policy's spelling differs in case. */
export function numericOperator(comparison: Comparison, exactName: boolean): OperatorFn {
  if (!exactName) return () => false;
  return (key, value) => compareKey(key, value, comparison);
}

export function holds(comparison: Comparison, a: number | bigint, b: number | bigint): boolean {
  switch (comparison) {
    case "GreaterThan":
      return a > b;
    case "GreaterThanOrEquals":
      return a >= b;
    case "LessThan":
      return a < b;
    case "LessThanOrEquals":
      return a <= b;
  }
}

function compareKey(key: JsonValue, value: JsonValue, comparison: Comparison): boolean {
  const test = (a: number, b: number): boolean => holds(comparison, a, b);
  if (typeof key === "number") return numberKey(key, value, comparison);
  if (typeof key !== "string") return false;

  const durations = parseDurationPair(key, value);
  if (durations !== undefined) return test(durationSeconds(durations[0]), durationSeconds(durations[1]));

  const kq = parseQuantity(key);
  const vq = kq !== undefined && typeof value === "string" ? parseQuantity(value) : undefined;
  if (kq !== undefined && vq !== undefined) return test(compareQuantities(kq, vq), 0);

  const f = parseGoFloat(key);
  if (f !== undefined) return numberKey(f, value, comparison);

  const version = parseSemver(key);
  if (version === undefined || typeof value !== "string") return false;
  const other = parseSemver(value);
  return other !== undefined && holds(comparison, compareSemver(version, other), 0);
}

function numberKey(key: number, value: JsonValue, comparison: Comparison): boolean {
  const test = (a: number, b: number): boolean => holds(comparison, a, b);
  if (typeof value === "number") return test(key, value);
  if (typeof value !== "string") return false;
  const durations = parseDurationPair(key, value);
  if (durations !== undefined) return test(durationSeconds(durations[0]), durationSeconds(durations[1]));
  const f = parseGoFloat(value);
  return f !== undefined && test(key, f);
}

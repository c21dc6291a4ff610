/**
 * Equals/Equal and NotEquals/NotEqual (`equal.go`, `notequal.go`). Both dispatch on the key's type:
 *
 * - bool: the value must be a bool.
 * - number: a number compares numerically; a string value is read as a float (Go syntax).
 * - string: durations first (a duration string against a duration string or a number of
 *   seconds); then, when the key is a quantity and the value a string, quantities (a string value
 *   that is not a quantity makes BOTH operators false); then the value is a wildcard pattern.
 * - map / list: deep equality with a value of the same kind.
 * - null: both operators are false.
 *
 * Equals is false on a type mismatch; NotEquals is true on one (the exceptions noted above aside).
 */
import type { JsonValue } from "../api/json.js";
import { compareQuantities, parseQuantity } from "../values/quantity.js";
import { durationSeconds } from "../values/duration.js";
import { wildcardMatch } from "../values/wildcard.js";
import { parseDurationPair } from "./duration-pair.js";
import { goParseFloat as parseGoFloat } from "../go/parse-float.js";
import { jsonEqual } from "../api/json-equal.js";

/** "mismatch": the value's type does not fit the key's; "neither": Kyverno answers false to both. */
type Verdict = boolean | "mismatch" | "neither";

export function equals(key: JsonValue, value: JsonValue): boolean {
  return compare(key, value) === true;
}

export function notEquals(key: JsonValue, value: JsonValue): boolean {
  const v = compare(key, value);
  if (v === "mismatch") return true;
  if (v === "neither") return false;
  return !v;
}

function compare(key: JsonValue, value: JsonValue): Verdict {
  if (key === null) return "neither";
  if (typeof key === "boolean") return typeof value === "boolean" ? key === value : "mismatch";
  if (typeof key === "number") return compareNumber(key, value);
  if (typeof key === "string") return compareString(key, value);
  if (Array.isArray(key)) return Array.isArray(value) ? jsonEqual(key, value) : "mismatch";
  return typeof value === "object" && value !== null && !Array.isArray(value) ? jsonEqual(key, value) : "mismatch";
}

function compareNumber(key: number, value: JsonValue): Verdict {
  if (typeof value === "number") return key === value;
  if (typeof value === "string") {
    const f = parseGoFloat(value);
    return f === undefined ? "mismatch" : f === key;
  }
  return "mismatch";
}

function compareString(key: string, value: JsonValue): Verdict {
  const durations = parseDurationPair(key, value);
  if (durations !== undefined) return durationSeconds(durations[0]) === durationSeconds(durations[1]);
  const kq = parseQuantity(key);
  if (kq !== undefined && typeof value === "string") {
    const vq = parseQuantity(value);
    // A quantity key against a string that is not a quantity: no wildcard fallback.
    return vq === undefined ? "neither" : compareQuantities(kq, vq) === 0;
  }
  return typeof value === "string" ? wildcardMatch(value, key) : "mismatch";
}

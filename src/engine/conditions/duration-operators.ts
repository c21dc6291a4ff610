/**
 * DurationGreaterThan(OrEquals), DurationLessThan(OrEquals) (`duration.go`), deprecated in favour
 * of the plain comparisons, which also understand durations. Numbers are whole seconds (any
 * fraction is dropped); strings must be Go durations (`1h30m`, `500ms`, "0").
 * As with the numeric operators, a mis-cased operator name always answers false.
 */
import type { JsonValue } from "../api/json.js";
import { parseDuration } from "../values/duration.js";
import { secondsToDuration } from "./duration-pair.js";
import { holds, type Comparison } from "./numeric.js";
import type { OperatorFn } from "./types.js";

export function durationOperator(comparison: Comparison, exactName: boolean): OperatorFn {
  if (!exactName) return () => false;
  return (key, value) => {
    const k = asDuration(key);
    const v = k === undefined ? undefined : asDuration(value);
    return k !== undefined && v !== undefined && holds(comparison, k, v);
  };
}

function asDuration(x: JsonValue): bigint | undefined {
  if (typeof x === "number") return secondsToDuration(x);
  if (typeof x === "string") return parseDuration(x);
  return undefined;
}

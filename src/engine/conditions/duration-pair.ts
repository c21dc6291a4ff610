/**
 * Kyverno reads durations on either side of a comparison (`pkg/engine/variables/operator`,
 * `parseDuration`): at least one side must be a Go duration string ("0" on its own does not
 * count); the other side is then a duration string too, or a number of seconds.
 */
import type { JsonValue } from "../api/json.js";
import { SECOND, float64ToInt64, parseDuration, wrapInt64 } from "../values/duration.js";

/** Both sides as nanoseconds, or `undefined` when this is not a duration comparison. */
export function parseDurationPair(key: JsonValue, value: JsonValue): readonly [bigint, bigint] | undefined {
  let k = typeof key === "string" && key !== "0" ? parseDuration(key) : undefined;
  let v = typeof value === "string" && value !== "0" ? parseDuration(value) : undefined;
  if (k === undefined && v === undefined) return undefined;
  if (k === undefined) {
    if (typeof key !== "number") return undefined;
    k = secondsToDuration(key);
  }
  if (v === undefined) {
    if (typeof value !== "number") return undefined;
    v = secondsToDuration(value);
  }
  return [k, v];
}

/**
 * Go's `time.Duration(n) * time.Second` for a float64 `n`: the fraction is dropped first, and the
 * product wraps around like int64 arithmetic.
 */
export function secondsToDuration(n: number): bigint {
  return wrapInt64(float64ToInt64(n) * SECOND);
}

/**
 * AllIn and AllNotIn (`allin.go`, `allnotin.go`).
 * AllIn: every key item is found in the value. AllNotIn: no key item is found in the value.
 * An empty key list is trivially "all in" and "all not in".
 */
import type { JsonValue } from "../api/json.js";
import { foundIn, inRange, isRange, scalarInValue, toSetKey, valueItems, type Membership } from "./set-membership.js";

export function allIn(key: JsonValue, value: JsonValue): boolean {
  const k = toSetKey(key);
  if (k === undefined) return false;
  const r = "scalar" in k ? scalarInValue(k.scalar, value) : allSet(k.list, value, false);
  return r === true;
}

export function allNotIn(key: JsonValue, value: JsonValue): boolean {
  const k = toSetKey(key);
  if (k === undefined) return false;
  if ("scalar" in k) {
    const r = scalarInValue(k.scalar, value);
    return r === "invalid" ? false : !r;
  }
  return allSet(k.list, value, true) === true;
}

/** `allSetExistsInArray`. */
function allSet(keys: readonly string[], value: JsonValue, notIn: boolean): Membership {
  if (typeof value === "string") {
    if (keys.length === 1 && keys[0] === value) return !notIn;
    if (isRange(value)) {
      return notIn ? keys.every((k) => !inRange(k, value)) : keys.every((k) => inRange(k, value));
    }
  }
  const items = valueItems(value);
  if (items === undefined) return "invalid";
  return notIn ? keys.every((k) => !foundIn(k, items)) : keys.every((k) => foundIn(k, items));
}

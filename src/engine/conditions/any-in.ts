/**
 * AnyIn and AnyNotIn (`anyin.go`, `anynotin.go`).
 * AnyIn: at least one key item is found in the value. AnyNotIn: at least one key item is not.
 */
import type { JsonValue } from "../api/json.js";
import { foundIn, inRange, isRange, scalarInValue, toSetKey, valueItems, type Membership } from "./set-membership.js";

export function anyIn(key: JsonValue, value: JsonValue): boolean {
  const k = toSetKey(key);
  if (k === undefined) return false;
  const r = "scalar" in k ? scalarInValue(k.scalar, value) : anySet(k.list, value, false);
  return r === true;
}

export function anyNotIn(key: JsonValue, value: JsonValue): boolean {
  const k = toSetKey(key);
  if (k === undefined) return false;
  if ("scalar" in k) {
    const r = scalarInValue(k.scalar, value);
    return r === "invalid" ? false : !r;
  }
  return anySet(k.list, value, true) === true;
}

/** `anySetExistsInArray`. */
function anySet(keys: readonly string[], value: JsonValue, notIn: boolean): Membership {
  if (typeof value === "string") {
    if (keys.length === 1 && keys[0] === value) return !notIn;
    if (isRange(value)) {
      // AnyNotIn turns `a-b` into `a!-b` (the first "-" only) and asks whether a key is outside.
      const range = notIn ? value.replace("-", "!-") : value;
      return keys.some((k) => inRange(k, range));
    }
  }
  const items = valueItems(value);
  if (items === undefined) return "invalid";
  return notIn ? keys.some((k) => !foundIn(k, items)) : keys.some((k) => foundIn(k, items));
}

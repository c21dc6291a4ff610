/**
 * In and NotIn, deprecated in favour of AnyIn/AllIn and AnyNotIn/AllNotIn (`in.go`, `notin.go`).
 *
 * A single key (a string, or a number printed with `%v`) is found when it wildcard-matches a list
 * item either way; against a string value it is found when the string, as a wildcard, matches it,
 * or when the string is a JSON array of strings holding it exactly. A string value that is not
 * such an array is a type error, so both In and NotIn are false.
 * A list key (strings only) is "in" when every item is, exactly, in the value's items.
 */
import type { JsonValue } from "../api/json.js";
import { wildcardMatch } from "../values/wildcard.js";
import { goFormatValue } from "../go/format-value.js";
import { unmarshalStringArray } from "./go-parse.js";
import type { Membership } from "./set-membership.js";
import { eitherWayMatch } from "./set-membership.js";

export function inOperator(key: JsonValue, value: JsonValue): boolean {
  const r = membership(key, value, false);
  return r === true;
}

export function notInOperator(key: JsonValue, value: JsonValue): boolean {
  const r = membership(key, value, true);
  return r === true;
}

function membership(key: JsonValue, value: JsonValue, notIn: boolean): Membership {
  if (typeof key === "string" || typeof key === "number") {
    const r = scalarIn(typeof key === "string" ? key : goFormatValue(key), value);
    return r === "invalid" || !notIn ? r : !r;
  }
  if (Array.isArray(key)) {
    // Kyverno asserts each item is a string (and would crash otherwise).
    if (!key.every((k): k is string => typeof k === "string")) return "invalid";
    return setIn(key, value, notIn);
  }
  return "invalid";
}

/** `keyExistsInArray`. */
function scalarIn(key: string, value: JsonValue): Membership {
  if (Array.isArray(value)) return value.some((v) => eitherWayMatch(key, goFormatValue(v)));
  if (typeof value !== "string") return "invalid";
  if (wildcardMatch(value, key)) return true;
  const items = unmarshalStringArray(value);
  return items === undefined ? "invalid" : items.includes(key);
}

/** `setExistsInArray`: exact, non-wildcard set comparison. */
function setIn(keys: readonly string[], value: JsonValue, notIn: boolean): Membership {
  let items: readonly string[] | undefined;
  if (Array.isArray(value)) {
    if (!value.every((v): v is string => typeof v === "string")) return "invalid";
    items = value;
  } else if (typeof value === "string") {
    if (keys.length === 1 && keys[0] === value) return !notIn;
    items = unmarshalStringArray(value);
  }
  if (items === undefined) return "invalid";
  const set = new Set(items);
  return notIn ? keys.some((k) => !set.has(k)) : keys.every((k) => set.has(k));
}

/**
 * The shared core of AnyIn, AllIn, AnyNotIn and AllNotIn (`anyin.go`, `allin.go`): keys and
 * values are compared as Go `%v` strings, with wildcards allowed on either side. A string value
 * may be a wildcard, a range (`1-5`, `10Mi-20Mi`), a JSON array of strings, or a single item.
 */
import type { JsonValue } from "../api/json.js";
import { wildcardMatch } from "../values/wildcard.js";
import { goFormatValue } from "../go/format-value.js";
import { isValidJson, unmarshalStringArray } from "./go-parse.js";
import { matchesStringPattern, operatorOfPattern } from "./range-pattern.js";

/** `true`/`false`, or "invalid" when the value has a type the operator does not accept. */
export type Membership = boolean | "invalid";

/** A key as the set operators see it: one string, or a list of strings. */
type SetKey = { readonly scalar: string } | { readonly list: readonly string[] };

/** Strings, numbers and booleans are single keys; lists are stringified item by item. */
export function toSetKey(key: JsonValue): SetKey | undefined {
  if (typeof key === "string") return { scalar: key };
  if (typeof key === "number" || typeof key === "boolean") return { scalar: goFormatValue(key) };
  if (Array.isArray(key)) return { list: key.map((k) => goFormatValue(k)) };
  return undefined;
}

/** Wildcard match with either side as the pattern. */
export function eitherWayMatch(a: string, b: string): boolean {
  // Equal strings match either way, wildcards or not.
  return a === b || wildcardMatch(a, b) || wildcardMatch(b, a);
}

/** Whether a range string (`a-b`) is what the value holds. */
export function isRange(value: string): boolean {
  return operatorOfPattern(value) === "-";
}

/** Whether a key string lies inside (or, for an `a!-b` pattern, outside) a range. */
export function inRange(key: string, range: string): boolean {
  return matchesStringPattern(key, range);
}

/** Whether one key string is found in the value (`anyKeyExistsInArray`). */
export function scalarInValue(key: string, value: JsonValue): Membership {
  if (Array.isArray(value)) return value.some((v) => eitherWayMatch(goFormatValue(v), key));
  if (typeof value !== "string") return "invalid";
  if (wildcardMatch(value, key)) return true;
  if (isRange(value)) return inRange(key, value);
  const items = stringItems(value);
  return items === undefined ? "invalid" : items.includes(key);
}

/**
 * The value's items for a list key: a list is stringified, a number is one item, a string is
 * a JSON array of strings when it is valid JSON and one item otherwise. `undefined` when the
 * value cannot be read as items (a valid JSON text that is not an array of strings, a map, …).
 */
export function valueItems(value: JsonValue): readonly string[] | undefined {
  if (Array.isArray(value)) return value.map((v) => goFormatValue(v));
  if (typeof value === "number") return [goFormatValue(value)];
  if (typeof value === "string") return stringItems(value);
  return undefined;
}

function stringItems(value: string): string[] | undefined {
  return isValidJson(value) ? unmarshalStringArray(value) : [value];
}

/** Whether a key item matches some value item. */
export function foundIn(key: string, values: readonly string[]): boolean {
  for (let i = 0; i < values.length; i++) if (eitherWayMatch(key, values[i] as string)) return true;
  return false;
}

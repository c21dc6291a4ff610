/** Deep equality of JSON values (Go's `reflect.DeepEqual` on decoded JSON). */
import type { JsonValue } from "../api/json.js";

export function jsonDeepEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonDeepEqual(x, b[i] as JsonValue));
  }
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  return ak.every((k) => Object.hasOwn(b, k) && jsonDeepEqual(a[k] as JsonValue, b[k] as JsonValue));
}

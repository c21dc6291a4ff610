/**
 * Whether a JSON value's serialised size is over a bound, about (strings by length, numbers and
 * punctuation by a few bytes), walking no further than the bound: the cost is that of the smaller of
 * the value and the bound.
 */
import type { JsonValue } from "../../engine/index.js";

export function jsonSizeOver(value: JsonValue, limit: number): boolean {
  let size = 0;
  const stack: JsonValue[] = [value];
  while (stack.length > 0) {
    const v = stack.pop() as JsonValue;
    if (typeof v === "string") size += v.length + 2;
    else if (v === null || typeof v !== "object") size += 8;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (const item of v) stack.push(item);
    } else {
      for (const k in v) {
        size += k.length + 4;
        stack.push(v[k] as JsonValue);
      }
    }
    if (size > limit) return true;
  }
  return false;
}

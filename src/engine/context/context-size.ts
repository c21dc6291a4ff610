/**
 * Kyverno caps the data context entries add to one JSON context at 2 MiB in total (its
 * `DefaultMaxContextSize`); going over is an error. Policy content is tenant input in the webhook,
 * so the same cap keeps one rule from loading gigabytes (a context entry that doubles the one before).
 */
import type { JsonValue } from "../api/json.js";

export const MAX_CONTEXT_BYTES = 2 * 1024 * 1024;

/**
 * The size of `value` as JSON text, roughly (strings and keys by their length plus quotes, numbers
 * by their digits), counted only until it passes `limit`: a huge value is not walked past it.
 */
export function jsonSizeUpTo(value: JsonValue, limit: number): number {
  let size = 0;
  const stack: JsonValue[] = [value];
  while (stack.length > 0 && size <= limit) {
    const v = stack.pop() as JsonValue;
    if (typeof v === "string") size += v.length + 2;
    else if (typeof v === "number") size += String(v).length;
    else if (typeof v === "boolean") size += v ? 4 : 5;
    else if (v === null) size += 4;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (let i = 0; i < v.length && size <= limit; i++) stack.push(v[i] as JsonValue);
    } else {
      size += 2;
      for (const k in v) {
        if (size > limit) break;
        size += k.length + 4;
        stack.push(v[k] as JsonValue);
      }
    }
  }
  return size;
}

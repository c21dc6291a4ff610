/** Small JSON helpers for rewriting rules without mutating the caller's documents. */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { setOwn } from "../api/set-own.js";

export { cloneJson } from "../api/json-copy.js";

/** Written and not null (Go's "non-nil" for pointers, slices and maps decoded from JSON). */
export function isPresent(v: JsonValue | undefined): v is JsonValue {
  return v !== undefined && v !== null;
}

export function asObject(v: JsonValue | undefined): JsonObject | undefined {
  return isObject(v) ? v : undefined;
}

export function asArray(v: JsonValue | undefined): JsonValue[] {
  return Array.isArray(v) ? v : [];
}

export function asString(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

/** Deep rewrite of every string (object keys included). */
export function mapStrings(v: JsonValue, f: (s: string) => string): JsonValue {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, f(k), mapStrings(x, f));
    return out;
  }
  return v;
}

import type { JsonObject, JsonValue } from "../../engine/api/json.js";

/** Set a key on a plain object; `__proto__` becomes an ordinary own property, never a prototype. */
export function setKey(target: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** A deep copy, so an expanded alias never shares objects with its anchor. */
export function cloneJson(value: JsonValue): JsonValue {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(cloneJson);
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) setKey(copy, key, cloneJson(value[key] as JsonValue));
  return copy;
}

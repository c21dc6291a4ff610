import { isObject, type JsonObject, type JsonValue } from "./json.js";
import { setOwn } from "./set-own.js";

/** A deep copy of JSON: nothing in the result aliases the input (`__proto__` stays an own key). */
export function cloneJson<T extends JsonValue>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => cloneJson(x)) as T;
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) setOwn(out, k, cloneJson(v[k] as JsonValue));
    return out as T;
  }
  return v;
}

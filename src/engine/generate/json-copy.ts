/** Deep copies of JSON, so generated objects never share structure with the policy or sources. */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { setOwn } from "../api/set-own.js";

export function copyJson<T extends JsonValue>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => copyJson(x)) as T;
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, copyJson(x));
    return out as T;
  }
  return v;
}

/** A copy of `o` without the listed keys (each kept value deep-copied). */
export function copyWithout(o: JsonObject, drop: ReadonlySet<string>): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(o)) if (!drop.has(k)) setOwn(out, k, copyJson(x));
  return out;
}

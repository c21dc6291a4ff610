/** Deep copies of JSON, so generated objects never share structure with the policy or sources. */
import type { JsonObject } from "../api/json.js";
import { cloneJson } from "../api/json-copy.js";
import { setOwn } from "../api/set-own.js";

/** A copy of `o` without the listed keys (each kept value deep-copied). */
export function copyWithout(o: JsonObject, drop: ReadonlySet<string>): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(o)) if (!drop.has(k)) setOwn(out, k, cloneJson(x));
  return out;
}

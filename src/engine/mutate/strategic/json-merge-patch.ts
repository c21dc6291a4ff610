/**
 * RFC 7386 JSON merge patch: a patch map merges key by key (`null` removes the key), anything
 * else, lists included, replaces the target. `$` keys are ordinary keys here.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { setOwn } from "../../api/set-own.js";
import { copyMap } from "./merge-support.js";

export function jsonMergePatch(base: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(base) ? copyMap(base) : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key] as JsonValue;
    if (value === null) {
      delete out[key];
    } else {
      setOwn(out, key, jsonMergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value));
    }
  }
  return out;
}

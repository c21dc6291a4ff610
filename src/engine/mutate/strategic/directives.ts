/**
 * Kubernetes strategic-merge-patch directives (sig-api-machinery "strategic-merge-patch.md"):
 * `$patch` on maps and lists, and the map-level `$retainKeys`, `$setElementOrder/<field>` and
 * `$deleteFromPrimitiveList/<field>`.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { ok, type EngineError, type Result } from "../../api/result.js";
import { mergeError } from "./merge-support.js";

export const PATCH_KEY = "$patch";
export const RETAIN_KEYS = "$retainKeys";
export const SET_ELEMENT_ORDER = "$setElementOrder/";
export const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList/";

type PatchDirective = "merge" | "replace" | "delete";

/** The map's `$patch` directive (`merge` when it has none); an unknown value is an error. */
export function readPatchDirective(map: JsonObject, path: string): Result<PatchDirective, EngineError> {
  if (!Object.hasOwn(map, PATCH_KEY)) return ok("merge");
  const v = map[PATCH_KEY];
  if (v === "merge" || v === "replace" || v === "delete") return ok(v);
  return mergeError(path, `${PATCH_KEY}: ${JSON.stringify(v)} is not a directive (use replace, delete or merge)`);
}

/** A list element that only carries `$patch`: a directive for the whole list. */
export function isListDirective(el: JsonValue): el is JsonObject {
  if (!isObject(el)) return false;
  const keys = Object.keys(el);
  return keys.length === 1 && keys[0] === PATCH_KEY;
}

/** A map key that is a map-level directive rather than a field. */
export function isMapDirectiveKey(key: string): boolean {
  return key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || key.startsWith(DELETE_FROM_PRIMITIVE_LIST);
}

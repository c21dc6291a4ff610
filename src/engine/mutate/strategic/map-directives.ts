/**
 * The map-level directives of a Kubernetes strategic merge patch, applied to a map after its fields
 * merged (built-in kinds only; see MergeContext.typed):
 *
 * - `$deleteFromPrimitiveList/<field>: [v...]` removes those values from the scalar list `<field>`;
 * - `$setElementOrder/<field>: [...]` puts the listed elements of `<field>` first, in that order
 *   (by merge key for lists of maps, by value for scalars), the others after in their order;
 * - `$retainKeys: [k...]` drops the keys not listed, where the schema gives the map a `retainKeys`
 *   strategy (Deployment `spec.strategy`, volumes); elsewhere it is ignored.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { ok, type Result } from "../../api/result.js";
import { setOwn } from "../../api/set-own.js";
import { DELETE_FROM_PRIMITIVE_LIST, RETAIN_KEYS, SET_ELEMENT_ORDER } from "./directives.js";
import { childPath, mergeError, own, scalarText } from "./merge-support.js";
import { fieldSchema } from "./schema.js";
import type { FieldSchema } from "./types.js";

/** Applies `directives` (the map's directive keys and values) to `merged`, in place. */
export function applyMapDirectives(
  merged: JsonObject,
  directives: JsonObject,
  field: FieldSchema | undefined,
  path: string,
): Result<JsonObject> {
  for (const key of Object.keys(directives)) {
    const value = directives[key] as JsonValue;
    const where = childPath(path, key);
    if (key === RETAIN_KEYS) continue;
    if (!Array.isArray(value)) return mergeError(where, `${key.split("/")[0] ?? key} must be a list`);
    const target = key.startsWith(SET_ELEMENT_ORDER)
      ? key.slice(SET_ELEMENT_ORDER.length)
      : key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
    const current = own(merged, target);
    if (!Array.isArray(current)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      setOwn(
        merged,
        target,
        current.filter((el) => !value.some((v) => sameScalar(el, v))),
      );
    } else {
      const mergeKey = fieldSchema(field?.node, target)?.list?.mergeKey;
      setOwn(merged, target, reorder(current, value, mergeKey));
    }
  }
  if (!Object.hasOwn(directives, RETAIN_KEYS)) return ok(merged);
  const retain = directives[RETAIN_KEYS];
  if (!Array.isArray(retain) || !retain.every((k) => typeof k === "string")) {
    return mergeError(childPath(path, RETAIN_KEYS), `${RETAIN_KEYS} must be a list of field names`);
  }
  if (field?.retainKeys !== true) return ok(merged);
  const keep = new Set(retain);
  for (const key of Object.keys(merged)) if (!keep.has(key)) delete merged[key];
  return ok(merged);
}

function sameScalar(a: JsonValue, b: JsonValue): boolean {
  return a === b;
}

/** `list` with the elements named by `order` first (in that order), then the rest (in theirs). */
function reorder(list: readonly JsonValue[], order: readonly JsonValue[], mergeKey: string | undefined): JsonValue[] {
  const identity = (el: JsonValue): string | undefined => {
    if (isObject(el)) return mergeKey === undefined ? undefined : `k:${scalarText(own(el, mergeKey))}`;
    return Array.isArray(el) || el === null ? undefined : `v:${scalarText(el)}`;
  };
  const used = new Set<number>();
  const out: JsonValue[] = [];
  for (const wanted of order) {
    const id = identity(wanted);
    if (id === undefined) continue;
    list.forEach((el, i) => {
      if (!used.has(i) && identity(el) === id) {
        used.add(i);
        out.push(el);
      }
    });
  }
  list.forEach((el, i) => {
    if (!used.has(i)) out.push(el);
  });
  return out;
}

/**
 * Go's nil slice, as structured-merge-diff leaves it where an ApplyConfiguration sets a list to `[]`
 * and the merge keeps the patch's list as it is (both sides empty, or an atomic list): the object
 * prints it as `[]`, but JSON encodes it as `null`, so a later JSONPatch mutation (which patches the
 * JSON-encoded object) and everything after it see `null` there, as in Kyverno and the API server.
 * The mark is the array's identity; a copy of the array is an ordinary empty list.
 */
import type { JsonValue } from "../api/json.js";
import { setOwn } from "../api/set-own.js";

const NIL_LISTS = new WeakSet<readonly JsonValue[]>();

/** A new empty list that stands for a nil slice. */
export function nilList(): JsonValue[] {
  const list: JsonValue[] = [];
  NIL_LISTS.add(list);
  return list;
}

/** A copy of `value` as JSON encodes it: every nil list is `null`. */
export function asEncoded(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return NIL_LISTS.has(value) ? null : value.map(asEncoded);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, asEncoded(v));
  return out;
}

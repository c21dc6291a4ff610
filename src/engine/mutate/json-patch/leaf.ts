/**
 * The last step of each operation, on the container that holds the target (evanphx
 * `partialDoc` / `partialArray` add, remove, get and set, with SupportNegativeIndices and
 * AllowMissingPathOnRemove). Each returns a fresh container and never changes its input.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { setOwn } from "../../api/set-own.js";
import { parseGoIndex } from "./pointer.js";
import { arrayPosition, done, fail, NOT_FOUND, type Container, type Outcome } from "./walk.js";

function notAnIndex(token: string, length: number): string {
  return `${JSON.stringify(token)} is not an index into the array there (length ${length})`;
}

/** Objects: set the key. Arrays: insert at the index ("-" or length appends, -1 also appends). */
export function addAt(parent: Container, token: string, value: JsonValue): Outcome<Container> {
  if (!Array.isArray(parent)) {
    const copy: JsonObject = { ...parent };
    setOwn(copy, token, value);
    return done(copy);
  }
  if (token === "-") return done([...parent, value]);
  const idx = parseGoIndex(token);
  if (idx === undefined) return fail(notAnIndex(token, parent.length));
  const pos = idx < 0 ? idx + parent.length + 1 : idx;
  if (pos < 0 || pos > parent.length) {
    return fail(`index ${idx} is out of range for an array of length ${parent.length} (use "-" to append)`);
  }
  return done([...parent.slice(0, pos), value, ...parent.slice(pos)]);
}

/** Objects: delete the key if present. Arrays: remove the element; an index out of range is a no-op. */
export function removeAt(parent: Container, token: string): Outcome<Container> {
  if (!Array.isArray(parent)) {
    if (!Object.hasOwn(parent, token)) return done(parent);
    const copy: JsonObject = {};
    for (const k of Object.keys(parent)) if (k !== token) setOwn(copy, k, parent[k] as JsonValue);
    return done(copy);
  }
  const idx = parseGoIndex(token);
  if (idx === undefined) return fail(notAnIndex(token, parent.length));
  const pos = arrayPosition(parent, token);
  if (pos === undefined) return done(parent);
  return done([...parent.slice(0, pos), ...parent.slice(pos + 1)]);
}

/**
 * The value at the token. An absent object key gives `undefined` (test compares it as null);
 * an array index that is invalid or out of range is an error.
 */
export function getAt(parent: Container, token: string): Outcome<JsonValue | undefined> {
  if (!Array.isArray(parent)) return done(Object.hasOwn(parent, token) ? (parent[token] as JsonValue) : undefined);
  const idx = parseGoIndex(token);
  if (idx === undefined) return fail(notAnIndex(token, parent.length));
  const pos = arrayPosition(parent, token);
  if (pos === undefined)
    return fail(`${NOT_FOUND} (index ${idx} is out of range for an array of length ${parent.length})`, true);
  return done(parent[pos] as JsonValue);
}

/** Replace an existing value; an absent key or index is an error. */
export function replaceAt(parent: Container, token: string, value: JsonValue): Outcome<Container> {
  const current = getAt(parent, token);
  if (!current.ok) return current;
  if (current.value === undefined) return fail(NOT_FOUND, true);
  if (Array.isArray(parent)) {
    const copy = parent.slice();
    copy[arrayPosition(parent, token) as number] = value;
    return done(copy);
  }
  const copy: JsonObject = { ...parent };
  setOwn(copy, token, value);
  return done(copy);
}

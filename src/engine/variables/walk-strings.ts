/**
 * Kyverno's JSON traversal for substitution: every string value and every map key is visited with
 * its path (a key with the path of its map). When a string is replaced by a map or a list, that new
 * value is traversed too, as Kyverno does, unless `revisit` is false (the `{{ }}` pass: a value a
 * variable gives is data). Unchanged subtrees are returned as they are (shared).
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { err, ok, type Result } from "../api/result.js";
import { setOwn } from "../api/set-own.js";
import { arrayChildPath, objectChildPath } from "./kyverno-path.js";

type StringVisitor = (text: string, path: string, inKey: boolean) => Result<JsonValue>;

const MAX_EXPANSIONS = 64;

function walkKey(key: string, path: string, visit: StringVisitor, errorKind: string): Result<string> {
  const r = visit(key, path, true);
  if (!r.ok) return r;
  if (r.value === null) return ok(key);
  if (typeof r.value !== "string")
    return err(errorKind, `expected string after substituting variables in key "${key}"`, path);
  return ok(r.value);
}

interface Walk {
  readonly visit: StringVisitor;
  readonly errorKind: string;
  readonly revisit: boolean;
}

function walkArray(list: readonly JsonValue[], path: string, w: Walk, depth: number): Result<JsonValue> {
  let out: JsonValue[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i] ?? null;
    const r = walk(item, arrayChildPath(path, i), w, depth);
    if (!r.ok) return r;
    if (r.value !== item && out === undefined) out = list.slice(0, i);
    out?.push(r.value);
  }
  return ok(out ?? (list as JsonValue[]));
}

function walkObject(object: JsonObject, path: string, w: Walk, depth: number): Result<JsonValue> {
  const keys = Object.keys(object);
  let out: JsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] ?? "";
    const newKey = walkKey(key, path, w.visit, w.errorKind);
    if (!newKey.ok) return newKey;
    const child = object[key] ?? null;
    const value = walk(child, objectChildPath(path, key), w, depth);
    if (!value.ok) return value;
    if (out === undefined && (newKey.value !== key || value.value !== child)) {
      out = {};
      for (const k of keys.slice(0, i)) setOwn(out, k, object[k] ?? null);
    }
    if (out !== undefined) setOwn(out, newKey.value, value.value);
  }
  return ok(out ?? object);
}

function walk(value: JsonValue, path: string, w: Walk, depth: number): Result<JsonValue> {
  if (typeof value === "string") {
    const r = w.visit(value, path, false);
    if (!w.revisit || !r.ok || r.value === value || typeof r.value !== "object" || r.value === null) return r;
    if (depth >= MAX_EXPANSIONS)
      return err(
        w.errorKind,
        `variables at path ${path} expand into themselves more than ${MAX_EXPANSIONS} times`,
        path,
      );
    return walk(r.value, path, w, depth + 1);
  }
  if (Array.isArray(value)) return walkArray(value, path, w, depth);
  if (isObject(value)) return walkObject(value, path, w, depth);
  return ok(value);
}

/**
 * Applies `visit` to every string value and map key of `value`, whose own path is `path`; with
 * `revisit` (the default) also to those of a map or list `visit` gives for a string.
 */
export function walkStrings(
  value: JsonValue,
  path: string,
  visit: StringVisitor,
  errorKind: string,
  options: { readonly revisit?: boolean } = {},
): Result<JsonValue> {
  return walk(value, path, { visit, errorKind, revisit: options.revisit ?? true }, 0);
}

/** Calls `visit` on every string value and map key, with its path, until it returns false. */
export function forEachString(
  value: JsonValue,
  path: string,
  visit: (text: string, path: string, inKey: boolean) => boolean | void,
): boolean {
  if (typeof value === "string") return visit(value, path, false) !== false;
  if (Array.isArray(value)) return value.every((item, i) => forEachString(item, arrayChildPath(path, i), visit));
  if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (visit(key, path, true) === false) return false;
      if (!forEachString(child, objectChildPath(path, key), visit)) return false;
    }
  }
  return true;
}

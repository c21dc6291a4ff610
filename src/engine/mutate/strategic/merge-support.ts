/**
 * Shared pieces of the strategic merge walk: the "remove this key" marker, the walk context,
 * JSON paths for messages, and the errors a user reads.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { err, type EngineError } from "../../api/result.js";
import { setOwn } from "../../api/set-own.js";

/** The merged value is absent: the key (or list element) is removed. */
export const ABSENT: unique symbol = Symbol("absent");
export type Merged = JsonValue | typeof ABSENT;

export interface MergeContext {
  /**
   * The resource is a built-in kind: the map directives `$retainKeys`, `$setElementOrder/…` and
   * `$deleteFromPrimitiveList/…` are interpreted and stripped. In a custom resource they are plain keys.
   */
  readonly typed: boolean;
}

export const ERROR_KIND = "strategic-merge";

export function childPath(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

export function elementPath(path: string, label: string): string {
  return `${path}[${label}]`;
}

/** An error naming where it happened: `spec.containers[name=nginx]: <message>`. */
export function mergeError(path: string, message: string): { ok: false; error: EngineError } {
  return err(ERROR_KIND, `${path === "" ? "(root)" : path}: ${message}`, path === "" ? undefined : path);
}

/** The value's own `key`, never an inherited property. */
export function own(map: JsonObject | undefined, key: string): JsonValue | undefined {
  return map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
}

/** A shallow copy keeping key order. */
export function copyMap(map: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(map)) setOwn(out, key, map[key] as JsonValue);
  return out;
}

/** How a value reads in a message: "a map", "a list", "a string". */
export function describeKind(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (isObject(v)) return "a map";
  return `a ${typeof v}`;
}

/**
 * The text kyaml compares merge keys and set values by (a YAML scalar's value): strings as they are,
 * numbers and booleans printed, anything else (absent, null, maps, lists) empty.
 */
export function scalarText(v: JsonValue | undefined): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return "";
}

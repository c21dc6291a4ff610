/** Small JSON helpers for patching: equality, copies, and how values are named in messages. */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { setOwn } from "../../api/set-own.js";

/** Deep equality: numbers by value, object key order irrelevant, own keys only. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i] as JsonValue));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k] as JsonValue, b[k] as JsonValue));
}

/** A fresh copy, so values taken from a policy never alias the patched resource. */
export function cloneJson(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(cloneJson);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) setOwn(out, k, cloneJson(v[k] as JsonValue));
    return out;
  }
  return v;
}

export function jsonTypeName(v: JsonValue | undefined): string {
  if (v === undefined) return "missing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}

/** Compact JSON text for a message, cut short when long. */
export function preview(v: JsonValue | undefined, max = 80): string {
  if (v === undefined) return "missing";
  const text = JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

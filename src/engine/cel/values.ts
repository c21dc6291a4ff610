/**
 * JSON in, JSON out. Kubernetes objects reach CEL as JSON: an integral number is a CEL `int`
 * (cel-js: bigint), any other number a `double`, objects are `map(string, dyn)` and arrays lists.
 * Results go back to JSON as Kubernetes would marshal them (bytes as base64, timestamps as
 * RFC 3339, durations as Go's duration string).
 */
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { Optional } from "@marcbachmann/cel-js";
import { type JsonObject, type JsonValue, textOf } from "../api/json.js";
import { base64Encode } from "../jmespath/functions/kyverno/base64.js";

/** A value as cel-js takes it: JSON with integers as bigint. */
type CelInput = null | boolean | number | bigint | string | CelInput[] | { [key: string]: CelInput };

export function toCel(v: JsonValue): CelInput {
  if (typeof v === "number") return Number.isInteger(v) && Number.isSafeInteger(v) ? BigInt(v) : v;
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(toCel);
  const out: { [key: string]: CelInput } = {};
  for (const k of Object.keys(v)) {
    const item = v[k];
    if (item !== undefined) out[k] = toCel(item);
  }
  return out;
}

/** A CEL result as JSON; what has no JSON form (a type, an empty optional) is said in the error. */
export function fromCel(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "boolean":
    case "string":
      return v;
    case "number":
      return Number.isFinite(v) ? v : String(v);
    case "bigint":
      return bigintToJson(v);
    case "object":
      break;
    default:
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- undefined, a symbol or a function: never an object here
      return String(v);
  }
  if (v instanceof UnsignedInt) return bigintToJson(v.value);
  if (v instanceof Uint8Array) return base64Encode(v);
  if (v instanceof Date) return v.toISOString().replace(".000Z", "Z");
  if (v instanceof Duration) return v.toString();
  if (v instanceof Optional) return v.hasValue() ? fromCel(v.value()) : null;
  if (Array.isArray(v)) return v.map(fromCel);
  if (v instanceof Set) return [...v].map(fromCel);
  if (v instanceof Map) {
    const out: JsonObject = {};
    for (const [k, item] of v) out[textOf(fromCel(k))] = fromCel(item);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    const name = (v as { name?: unknown }).name;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a class instance (a CEL type value) prints itself
    return typeof name === "string" ? name : String(v);
  }
  const out: JsonObject = {};
  for (const [k, item] of Object.entries(v)) out[k] = fromCel(item);
  return out;
}

function bigintToJson(v: bigint): JsonValue {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v.toString();
}

import { float32MapKey, type JsonValue } from "../../engine/index.js";
import type { GoScalar } from "./resolve-scalar.js";

/**
 * JSON object keys from YAML keys, as sigs.k8s.io/yaml converts them: strings stay, ints print in
 * decimal, bools print as `true`/`false`, floats print like Go's `FormatFloat(f, 'g', -1, 32)`
 * (`.inf`, `-.inf`, `.nan` for the specials). Null and unsigned 64-bit keys have no JSON form.
 */
type KeyResult = { readonly ok: true; readonly key: string } | { readonly ok: false; readonly message: string };

export function keyFromScalar(scalar: GoScalar): KeyResult {
  switch (scalar.kind) {
    case "str":
      return { ok: true, key: scalar.value };
    case "bool":
      return { ok: true, key: scalar.value ? "true" : "false" };
    case "int":
      return { ok: true, key: scalar.text };
    case "float":
      return { ok: true, key: float32MapKey(scalar.value) };
    case "uint":
      return { ok: false, message: `unsupported map key of type uint64: ${scalar.value}` };
    case "null":
      return { ok: false, message: "unsupported map key: null" };
  }
}

/** A key given by an alias: the aliased value is already JSON. */
export function keyFromValue(value: JsonValue): KeyResult {
  if (typeof value === "string") return { ok: true, key: value };
  if (typeof value === "boolean") return { ok: true, key: value ? "true" : "false" };
  if (typeof value === "number") {
    return { ok: true, key: Number.isSafeInteger(value) ? String(value) : float32MapKey(value) };
  }
  if (value === null) return { ok: false, message: "unsupported map key: null" };
  return { ok: false, message: `unsupported map key: a ${Array.isArray(value) ? "sequence" : "mapping"}` };
}

import type { JsonValue } from "../../engine/index.js";
import type { GoScalar } from "./resolve-scalar.js";

/**
 * JSON object keys from YAML keys, as sigs.k8s.io/yaml converts them: strings stay, ints print in
 * decimal, bools print as `true`/`false`, floats print like Go's `FormatFloat(f, 'g', -1, 32)`
 * (`.inf`, `-.inf`, `.nan` for the specials). Null and unsigned 64-bit keys have no JSON form.
 */
export type KeyResult = { readonly ok: true; readonly key: string } | { readonly ok: false; readonly message: string };

export function keyFromScalar(scalar: GoScalar): KeyResult {
  switch (scalar.kind) {
    case "str":
      return { ok: true, key: scalar.value };
    case "bool":
      return { ok: true, key: scalar.value ? "true" : "false" };
    case "int":
      return { ok: true, key: scalar.text };
    case "float":
      return { ok: true, key: formatGoFloat32(scalar.value) };
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
    return { ok: true, key: Number.isSafeInteger(value) ? String(value) : formatGoFloat32(value) };
  }
  if (value === null) return { ok: false, message: "unsupported map key: null" };
  return { ok: false, message: `unsupported map key: a ${Array.isArray(value) ? "sequence" : "mapping"}` };
}

/** Go's strconv.FormatFloat(x, 'g', -1, 32): shortest float32 digits, %e when exp < -4 or >= 6. */
export function formatGoFloat32(x: number): string {
  if (Number.isNaN(x)) return ".nan";
  const f = Math.fround(x);
  if (f === Number.POSITIVE_INFINITY) return ".inf";
  if (f === Number.NEGATIVE_INFINITY) return "-.inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const sign = f < 0 ? "-" : "";
  const abs = Math.abs(f);
  let digits = "";
  let exp = 0;
  for (let precision = 1; precision <= 9; precision++) {
    const text = abs.toExponential(precision - 1);
    if (Math.fround(Number(text)) === abs || precision === 9) {
      const [mantissa = "", exponent = "0"] = text.split("e");
      digits = mantissa.replace(".", "").replace(/0+$/, "") || "0";
      exp = Number(exponent);
      break;
    }
  }
  // For the shortest form Go switches to %e when the decimal exponent is < -4 or >= 6.
  if (exp < -4 || exp >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const e = Math.abs(exp);
    return `${sign}${digits[0] ?? "0"}${fraction}e${exp < 0 ? "-" : "+"}${e < 10 ? `0${e}` : e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${"0".repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

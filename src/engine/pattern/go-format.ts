/**
 * Go's text forms of JSON values, as Kyverno prints them in pattern messages.
 * Kyverno decodes JSON numbers as int64 when they are whole and float64 otherwise; we follow that:
 * a JS number is an "int" when `Number.isInteger` holds.
 */
import type { JsonValue } from "../api/json.js";
import { goFormatValue, isGoInt } from "../go/format-value.js";

export { goIntString, isGoInt } from "../go/format-value.js";

/** Go `strconv.FormatFloat(v, 'E', -1, 64)`: shortest digits, e.g. `1.5E+00`, `1E-03`. */
export function formatFloatE(v: number): string {
  return exponentForm(v, "E");
}

/** Go `%v` of a decoded JSON value, whole numbers as int64: `map[a:1 b:x]`, `[a b]`, `<nil>`, `1.5`, `42`. */
export function goValueString(v: JsonValue | undefined): string {
  return goFormatValue(v, "int64-when-whole");
}

/** Go `%T` of a decoded JSON value. */
export function goTypeName(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return isGoInt(v) ? "int64" : "float64";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

function exponentForm(v: number, letter: "e" | "E"): string {
  const s = v.toExponential();
  const at = s.indexOf("e");
  const mantissa = s.slice(0, at);
  const expNum = Number(s.slice(at + 1));
  const sign = expNum < 0 ? "-" : "+";
  const digits = String(Math.abs(expNum)).padStart(2, "0");
  return `${mantissa}${letter}${sign}${digits}`;
}

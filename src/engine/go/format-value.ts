/**
 * Go's `fmt` rendering of decoded JSON values (`%v` and `%#v`), as go-jmespath error texts and
 * `jp parse` output show them. Objects print with sorted keys, as Go prints maps.
 */
import type { JsonValue } from "../api/json.js";
import { goQuote } from "./quote.js";
import { compareCodePoints } from "./strings.js";

/** `%v` of a float64: shortest digits, exponent form (`1e+06`) when the exponent is < -4 or >= 6. */
export function goFormatFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  if (n === 0) return Object.is(n, -0) ? "-0" : "0";
  const [mantissa = "0", expText = "0"] = n.toExponential().split("e");
  const exp = Number(expText);
  // strconv 'g' with shortest precision uses %e when exp < -4 || exp >= 6 (eprec is 6).
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    const digits = String(Math.abs(exp)).padStart(2, "0");
    return `${mantissa}e${sign}${digits}`;
  }
  return String(n);
}

/** `%v` of a decoded JSON value, e.g. `<nil>`, `[1 a]`, `map[k:v]`. */
export function goFormatValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "number") return goFormatFloat(v);
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (Array.isArray(v)) return "[" + v.map(goFormatValue).join(" ") + "]";
  if (typeof v === "object") {
    const obj = v as Record<string, unknown>;
    if (!isPlainData(obj)) return "{}";
    const keys = Object.keys(obj).sort(compareCodePoints);
    return "map[" + keys.map((k) => `${k}:${goFormatValue(obj[k])}`).join(" ") + "]";
  }
  return String(v);
}

function isPlainData(obj: object): boolean {
  const proto: unknown = Object.getPrototypeOf(obj);
  return proto === Object.prototype || proto === null;
}

/** `%#v` of a value held in an `interface{}` (the Go syntax form `jp parse` prints for literals). */
export function goSyntaxValue(v: JsonValue, nested = false): string {
  if (v === null) return nested ? "interface {}(nil)" : "<nil>";
  if (typeof v === "number") return goFormatFloat(v);
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (Array.isArray(v)) return "[]interface {}{" + v.map((x) => goSyntaxValue(x, true)).join(", ") + "}";
  const keys = Object.keys(v).sort(compareCodePoints);
  const parts = keys.map((k) => `${goQuote(k)}:${goSyntaxValue(v[k] ?? null, true)}`);
  return "map[string]interface {}{" + parts.join(", ") + "}";
}

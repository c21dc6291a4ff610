/**
 * Go's `fmt` rendering of decoded JSON values (`%v` and `%#v`), as go-jmespath error texts, `jp
 * parse`, Kyverno's set operators, variable and pattern messages show them. Objects print with
 * sorted keys, as Go prints maps.
 */
import { isPlainData, type JsonValue } from "../api/json.js";
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

/** Whether Kyverno would hold this number as an int64 (true) or a float64 (false). */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) <= 9.223372036854776e18;
}

/** Decimal text of a whole number, without JS's exponent form for large values. */
export function goIntString(n: number): string {
  return Math.abs(n) < 1e21 ? n.toFixed(0) : BigInt(n).toString();
}

/**
 * How the JSON numbers of a value were decoded, which decides how `%v` prints them:
 * - `"float64"`: every number is a float64, as `json.Unmarshal` into `interface{}` decodes it
 *   (JMESPath values, condition operands, variables): 1000000 → `1e+06`.
 * - `"int64-when-whole"`: whole numbers are int64, as Kubernetes decodes resources and Kyverno's
 *   pattern code holds them: 1000000 → `1000000`, 2.5 → `2.5`.
 */
type GoNumbers = "float64" | "int64-when-whole";

/** `%v` of a decoded JSON value, e.g. `<nil>`, `[1 a]`, `map[k:v]`; other objects print `{}`. */
export function goFormatValue(v: unknown, numbers: GoNumbers = "float64"): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return numbers === "int64-when-whole" && isGoInt(v) ? goIntString(v) : goFormatFloat(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) out += (i === 0 ? "" : " ") + goFormatValue(v[i], numbers);
    return out + "]";
  }
  if (typeof v === "object") {
    if (!isPlainData(v)) return "{}";
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj).sort(compareCodePoints);
    let out = "map[";
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      out += (i === 0 ? "" : " ") + k + ":" + goFormatValue(obj[k], numbers);
    }
    return out + "]";
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects are handled above; what is left prints as String does
  return String(v);
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

/**
 * Go's `fmt.Sprint` (the `%v` verb) for JSON values, which Kyverno's set operators use to turn
 * keys and values into strings before comparing them.
 *
 * Every JSON number is a Go float64, printed the way `strconv.FormatFloat(f, 'g', -1, 64)` does:
 * the shortest digits that read back to the same number, in plain form when the decimal exponent
 * is in [-4, 6) and in exponent form otherwise (Go decides with a precision of 6 when the shortest
 * form is asked for). So 5 → "5", 1.5 → "1.5", 100000 → "100000", 1000000 → "1e+06",
 * 1234567 → "1.234567e+06", 0.0001 → "0.0001", 0.00001 → "1e-05".
 *
 * Caveat: Kubernetes decodes whole numbers in resources as int64, which Go prints without an
 * exponent (1000000 → "1000000"). JSON values here do not keep that distinction; every number is
 * treated as float64, which is what literal numbers in a policy are.
 */
import type { JsonValue } from "../api/json.js";

/** `fmt.Sprint(v)` for a JSON value. */
export function goSprint(v: JsonValue): string {
  if (v === null) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return formatGoFloat(v);
  if (Array.isArray(v)) return `[${v.map(goSprint).join(" ")}]`;
  const keys = Object.keys(v).sort(compareCodePoints);
  return `map[${keys.map((k) => `${k}:${goSprint(v[k] as JsonValue)}`).join(" ")}]`;
}

/** A float64 printed as Go's `%v` does. */
export function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (f === Infinity) return "+Inf";
  if (f === -Infinity) return "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const neg = f < 0;
  // toExponential() with no argument gives the shortest round-tripping digits.
  const [mantissa = "", expText = "0"] = Math.abs(f).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exp = Number(expText);
  const body = exp < -4 || exp >= 6 ? exponentForm(digits, exp) : plainForm(digits, exp);
  return neg ? `-${body}` : body;
}

function exponentForm(digits: string, exp: number): string {
  const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const abs = Math.abs(exp);
  const expDigits = abs < 10 ? `0${abs}` : `${abs}`;
  return `${head}e${exp < 0 ? "-" : "+"}${expDigits}`;
}

function plainForm(digits: string, exp: number): string {
  const point = exp + 1; // digits before the decimal point
  if (point <= 0) return `0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + "0".repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Byte order of the UTF-8 encodings, which is how Go sorts map keys when printing. */
export function compareCodePoints(a: string, b: string): number {
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done === true) return y.done === true ? 0 : -1;
    if (y.done === true) return 1;
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx - cy;
  }
}

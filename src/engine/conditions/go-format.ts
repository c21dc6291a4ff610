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
import { goFormatFloat } from "../go/format-value.js";
import { compareCodePoints } from "../go/strings.js";

/** `fmt.Sprint(v)` for a JSON value. */
export function goSprint(v: JsonValue): string {
  if (v === null) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return goFormatFloat(v);
  if (Array.isArray(v)) return `[${v.map(goSprint).join(" ")}]`;
  const keys = Object.keys(v).sort(compareCodePoints);
  return `map[${keys.map((k) => `${k}:${goSprint(v[k] as JsonValue)}`).join(" ")}]`;
}

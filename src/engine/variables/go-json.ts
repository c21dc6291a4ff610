/**
 * JSON text exactly as Kyverno's encoder (json-iterator in standard-library mode) writes it when a
 * non-string variable is embedded in a longer string: map keys sorted, no spaces, `<` `>` `&`
 * escaped as `\u003c` `\u003e` `\u0026`, U+2028/U+2029 escaped, control characters other than
 * `\n` `\r` `\t` written `\u00XX`, and `-0` kept.
 */
import type { JsonValue } from "../api/json.js";
import { compareCodePoints } from "../go/strings.js";

const HEX = "0123456789abcdef";

function escapeChar(ch: string): string {
  switch (ch) {
    case '"':
      return '\\"';
    case "\\":
      return "\\\\";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    case "\u2028":
      return "\\u2028";
    case "\u2029":
      return "\\u2029";
    default: {
      const cp = ch.charCodeAt(0);
      if (cp >= 0xd800 && cp <= 0xdfff) return "\\ufffd"; // a lone surrogate is invalid UTF-8
      return `\\u00${HEX[cp >> 4] ?? "0"}${HEX[cp & 0xf] ?? "0"}`;
    }
  }
}

// Characters that need escaping: quote, backslash, controls, HTML-sensitive, line/paragraph separators, lone surrogates.
const NEEDS_ESCAPE =
  /["\\\u0000-\u001f<>&\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function goJsonString(s: string): string {
  return `"${s.replace(NEEDS_ESCAPE, escapeChar)}"`;
}

export function goJsonNumber(n: number): string {
  if (Object.is(n, -0)) return "-0";
  // For finite numbers JavaScript's shortest form and Go's ('f' below 1e21 and from 1e-6, else 'e'
  // with a one-digit negative exponent written e-7) agree.
  return Number.isFinite(n) ? String(n) : "null";
}

export function goJson(value: JsonValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return goJsonString(value);
  if (typeof value === "number") return goJsonNumber(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(goJson).join(",")}]`;
  const keys = Object.keys(value).sort(compareCodePoints);
  return `{${keys.map((k) => `${goJsonString(k)}:${goJson(value[k] ?? null)}`).join(",")}}`;
}

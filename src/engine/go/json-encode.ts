/**
 * Go's `encoding/json.Marshal` for decoded JSON values: map keys sorted, `<`, `>` and `&` escaped
 * as \u003c \u003e \u0026, U+2028/U+2029 escaped, `-0` kept, NaN and infinities refused. This is
 * what `to_string` prints. The `json-iterator` dialect is the encoder Kyverno uses when a
 * non-string variable is embedded in a longer string (json-iterator in standard-library mode): the
 * same, except that `\b` and `\f` are written `\u0008` `\u000c` and NaN and infinities as `null`.
 */
import { isPlainData, type JsonValue } from "../api/json.js";
import { compareCodePoints } from "./strings.js";

/** Thrown when a value cannot be encoded (NaN, infinities) or the output would be too long. */
export class GoJsonEncodeError extends Error {
  constructor(
    readonly reason: "unsupported" | "too-long",
    message: string,
  ) {
    super(message);
    this.name = "GoJsonEncodeError";
  }
}

/** Which Go encoder to follow: the standard library's, or json-iterator's (see the module comment). */
type GoJsonDialect = "encoding/json" | "json-iterator";

const HEX = "0123456789abcdef";

function escapeChar(c: number, dialect: GoJsonDialect): string {
  if (dialect === "json-iterator" && (c === 0x08 || c === 0x0c)) return "\\u000" + HEX.charAt(c);
  switch (c) {
    case 0x22:
      return '\\"';
    case 0x5c:
      return "\\\\";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    default:
      return (
        "\\u" + HEX.charAt((c >> 12) & 15) + HEX.charAt((c >> 8) & 15) + HEX.charAt((c >> 4) & 15) + HEX.charAt(c & 15)
      );
  }
}

function needsEscape(c: number): boolean {
  return (
    c < 0x20 ||
    c === 0x22 ||
    c === 0x5c ||
    c === 0x3c ||
    c === 0x3e ||
    c === 0x26 ||
    c === 0x2028 ||
    c === 0x2029 ||
    (c >= 0xd800 && c <= 0xdfff)
  );
}

/** A Go JSON string literal for `s`. Lone surrogates (invalid UTF-8 in Go) become `\ufffd`. */
export function goJsonString(s: string, dialect: GoJsonDialect = "encoding/json"): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!needsEscape(c)) continue;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    out += s.slice(start, i);
    out += c >= 0xd800 && c <= 0xdfff ? "\\ufffd" : escapeChar(c, dialect);
    start = i + 1;
  }
  return out + s.slice(start) + '"';
}

/**
 * Go's float64 JSON text: the shortest round-trip digits, exponent form below 1e-6 and from 1e21.
 * NaN and infinities throw, or are `null` in the json-iterator dialect.
 */
export function goJsonNumber(n: number, dialect: GoJsonDialect = "encoding/json"): string {
  if (!Number.isFinite(n)) {
    if (dialect === "json-iterator") return "null";
    const text = Number.isNaN(n) ? "NaN" : n > 0 ? "+Inf" : "-Inf";
    throw new GoJsonEncodeError("unsupported", `json: unsupported value: ${text}`);
  }
  if (n === 0 && Object.is(n, -0)) return "-0";
  return String(n);
}

/**
 * Encodes `value` as Go would. Values that are not JSON (e.g. an expression reference) encode as
 * `{}`, as Go encodes a struct without exported fields. Throws `GoJsonEncodeError`.
 */
export function goJsonMarshal(
  value: unknown,
  maxLength = Number.POSITIVE_INFINITY,
  dialect: GoJsonDialect = "encoding/json",
): string {
  const parts: string[] = [];
  let length = 0;
  const emit = (s: string): void => {
    length += s.length;
    if (length > maxLength)
      throw new GoJsonEncodeError("too-long", `encoded JSON is longer than ${maxLength} characters`);
    parts.push(s);
  };
  const walk = (v: unknown): void => {
    if (v === null || v === undefined) return emit("null");
    switch (typeof v) {
      case "string":
        return emit(goJsonString(v, dialect));
      case "number":
        return emit(goJsonNumber(v, dialect));
      case "boolean":
        return emit(v ? "true" : "false");
      case "object":
        break;
      default:
        return emit("null");
    }
    if (Array.isArray(v)) {
      emit("[");
      for (let i = 0; i < v.length; i++) {
        if (i > 0) emit(",");
        walk(v[i]);
      }
      return emit("]");
    }
    if (!isPlainData(v)) return emit("{}");
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj).sort(compareCodePoints);
    emit("{");
    keys.forEach((k, i) => {
      if (i > 0) emit(",");
      emit(goJsonString(k, dialect));
      emit(":");
      walk(obj[k]);
    });
    emit("}");
  };
  walk(value);
  return parts.join("");
}

/** JSON text as Kyverno writes a non-string variable embedded in a longer string (the json-iterator dialect). */
export function goJson(value: JsonValue): string {
  return goJsonMarshal(value, Number.POSITIVE_INFINITY, "json-iterator");
}

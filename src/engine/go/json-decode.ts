/**
 * Go's `encoding/json.Unmarshal` into `interface{}`, with Go's error texts (e.g.
 * `invalid character 'o' in literal false (expecting 'a')`), for JMESPath backtick literals and
 * quoted identifiers. Differences from JSON.parse: lone surrogates decode to U+FFFD and a number
 * beyond float64 range is an error rather than Infinity.
 */
import type { JsonValue } from "../api/json.js";
import { goJsonQuoteChar } from "./quote.js";
import { setOwn, wellFormed } from "../api/set-own.js";

export class GoJsonDecodeError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly tooDeep = false,
  ) {
    super(message);
    this.name = "GoJsonDecodeError";
  }
}

interface Cursor {
  readonly s: string;
  i: number;
  depth: number;
  readonly maxDepth: number;
  rangeError: string | undefined;
}

const EOF_MESSAGE = "unexpected end of JSON input";

function firstUtf8Byte(cp: number): number {
  if (cp < 0x80) return cp;
  if (cp < 0x800) return 0xc0 | (cp >> 6);
  if (cp < 0x10000) return 0xe0 | (cp >> 12);
  return 0xf0 | (cp >> 18);
}

function fail(c: Cursor, context: string): never {
  if (c.i >= c.s.length) throw new GoJsonDecodeError(EOF_MESSAGE, c.i);
  const ch = goJsonQuoteChar(firstUtf8Byte(c.s.codePointAt(c.i) ?? 0));
  throw new GoJsonDecodeError(`invalid character ${ch} ${context}`, c.i);
}

function skipSpace(c: Cursor): void {
  for (;;) {
    const ch = c.s.charCodeAt(c.i);
    if (ch !== 0x20 && ch !== 0x09 && ch !== 0x0a && ch !== 0x0d) return;
    c.i++;
  }
}

function isDigit(ch: number): boolean {
  return ch >= 0x30 && ch <= 0x39;
}

function digits(c: Cursor): void {
  while (isDigit(c.s.charCodeAt(c.i))) c.i++;
}

function parseNumber(c: Cursor): number {
  const start = c.i;
  if (c.s.charCodeAt(c.i) === 0x2d) {
    c.i++;
    if (!isDigit(c.s.charCodeAt(c.i))) fail(c, "in numeric literal");
  }
  if (c.s.charCodeAt(c.i) === 0x30) c.i++;
  else digits(c);
  if (c.s.charCodeAt(c.i) === 0x2e) {
    c.i++;
    if (!isDigit(c.s.charCodeAt(c.i))) fail(c, "after decimal point in numeric literal");
    digits(c);
  }
  const e = c.s.charCodeAt(c.i);
  if (e === 0x65 || e === 0x45) {
    c.i++;
    const sign = c.s.charCodeAt(c.i);
    if (sign === 0x2b || sign === 0x2d) c.i++;
    if (!isDigit(c.s.charCodeAt(c.i))) fail(c, "in exponent of numeric literal");
    digits(c);
  }
  const text = c.s.slice(start, c.i);
  const n = Number(text);
  if (!Number.isFinite(n) && c.rangeError === undefined) {
    c.rangeError = `json: cannot unmarshal number ${text} into Go value of type float64`;
  }
  return n;
}

function hex4(c: Cursor): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const ch = c.s.charCodeAt(c.i);
    const d =
      ch >= 0x30 && ch <= 0x39
        ? ch - 0x30
        : ch >= 0x61 && ch <= 0x66
          ? ch - 0x57
          : ch >= 0x41 && ch <= 0x46
            ? ch - 0x37
            : -1;
    if (d < 0) fail(c, "in \\u hexadecimal character escape");
    v = v * 16 + d;
    c.i++;
  }
  return v;
}

/** JSON's one-character escapes (`\n` …) and what each stands for. */
export const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

function escapeSequence(c: Cursor): string {
  const ch = c.s.charAt(c.i);
  const simple = SIMPLE_ESCAPES[ch];
  if (simple !== undefined) {
    c.i++;
    return simple;
  }
  if (ch !== "u") fail(c, "in string escape code");
  c.i++;
  const unit = hex4(c);
  if (unit < 0xd800 || unit > 0xdfff) return String.fromCharCode(unit);
  if (unit <= 0xdbff && c.s.startsWith("\\u", c.i)) {
    const save = c.i;
    c.i += 2;
    const low = hex4(c);
    if (low >= 0xdc00 && low <= 0xdfff) return String.fromCharCode(unit, low);
    c.i = save;
  }
  return "\ufffd";
}

/** Parses a string whose opening quote is at `c.i`. */
function parseString(c: Cursor): string {
  c.i++;
  let out = "";
  let start = c.i;
  for (;;) {
    if (c.i >= c.s.length) fail(c, "in string literal");
    const ch = c.s.charCodeAt(c.i);
    if (ch === 0x22) {
      out += wellFormed(c.s.slice(start, c.i));
      c.i++;
      return out;
    }
    if (ch === 0x5c) {
      out += wellFormed(c.s.slice(start, c.i));
      c.i++;
      out += escapeSequence(c);
      start = c.i;
    } else if (ch < 0x20) {
      fail(c, "in string literal");
    } else {
      c.i++;
    }
  }
}

function parseLiteral(c: Cursor, word: string, value: JsonValue): JsonValue {
  for (let k = 1; k < word.length; k++) {
    c.i++;
    if (c.s.charAt(c.i) !== word.charAt(k)) fail(c, `in literal ${word} (expecting '${word.charAt(k)}')`);
  }
  c.i++;
  return value;
}

function enter(c: Cursor): void {
  if (++c.depth > c.maxDepth) throw new GoJsonDecodeError(`JSON is nested deeper than ${c.maxDepth} levels`, c.i, true);
}

function parseArray(c: Cursor): JsonValue[] {
  enter(c);
  c.i++;
  const out: JsonValue[] = [];
  skipSpace(c);
  if (c.s.charCodeAt(c.i) === 0x5d) {
    c.i++;
    c.depth--;
    return out;
  }
  for (;;) {
    skipSpace(c);
    out.push(parseValue(c));
    skipSpace(c);
    const ch = c.s.charCodeAt(c.i);
    if (ch === 0x5d) break;
    if (ch !== 0x2c) fail(c, "after array element");
    c.i++;
  }
  c.i++;
  c.depth--;
  return out;
}

function parseObject(c: Cursor): JsonValue {
  enter(c);
  c.i++;
  const out: Record<string, JsonValue> = {};
  skipSpace(c);
  if (c.s.charCodeAt(c.i) === 0x7d) {
    c.i++;
    c.depth--;
    return out;
  }
  for (;;) {
    skipSpace(c);
    if (c.s.charCodeAt(c.i) !== 0x22) fail(c, "looking for beginning of object key string");
    const key = parseString(c);
    skipSpace(c);
    if (c.s.charCodeAt(c.i) !== 0x3a) fail(c, "after object key");
    c.i++;
    skipSpace(c);
    setOwn(out, key, parseValue(c));
    skipSpace(c);
    const ch = c.s.charCodeAt(c.i);
    if (ch === 0x7d) break;
    if (ch !== 0x2c) fail(c, "after object key:value pair");
    c.i++;
  }
  c.i++;
  c.depth--;
  return out;
}

function parseValue(c: Cursor): JsonValue {
  const ch = c.s.charCodeAt(c.i);
  switch (ch) {
    case 0x7b:
      return parseObject(c);
    case 0x5b:
      return parseArray(c);
    case 0x22:
      return parseString(c);
    case 0x74:
      return parseLiteral(c, "true", true);
    case 0x66:
      return parseLiteral(c, "false", false);
    case 0x6e:
      return parseLiteral(c, "null", null);
    default:
      if (ch === 0x2d || isDigit(ch)) return parseNumber(c);
      return fail(c, "looking for beginning of value");
  }
}

/** Decodes `text` as Go's `json.Unmarshal(text, &v)` with `v interface{}` would. */
export function goJsonUnmarshal(text: string, maxDepth = 10000): JsonValue {
  const c: Cursor = { s: text, i: 0, depth: 0, maxDepth, rangeError: undefined };
  skipSpace(c);
  const value = parseValue(c);
  skipSpace(c);
  if (c.i < c.s.length) fail(c, "after top-level value");
  if (c.rangeError !== undefined) throw new GoJsonDecodeError(c.rangeError, 0);
  return value;
}

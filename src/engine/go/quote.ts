/**
 * Go's `strconv` quoting, for error texts that must read exactly as go-jmespath prints them.
 * JavaScript strings are UTF-16; a lone surrogate stands for invalid UTF-8 and prints as U+FFFD.
 */

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

function shortEscape(cp: number): string | undefined {
  switch (cp) {
    case 0x07:
      return "\\a";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x0b:
      return "\\v";
    case 0x5c:
      return "\\\\";
    default:
      return undefined;
  }
}

function escapeRune(cp: number, quote: number, asciiOnly: boolean): string {
  if (cp === quote) return "\\" + String.fromCodePoint(cp);
  const short = shortEscape(cp);
  if (short !== undefined) return short;
  if (cp < 0x80) {
    return cp >= 0x20 && cp < 0x7f ? String.fromCodePoint(cp) : "\\x" + hex(cp, 2);
  }
  if (!asciiOnly && PRINTABLE.test(String.fromCodePoint(cp))) return String.fromCodePoint(cp);
  return cp < 0x10000 ? "\\u" + hex(cp, 4) : "\\U" + hex(cp, 8);
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0xfffd;
    out.push(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
  }
  return out;
}

/** `strconv.Quote`: a double-quoted Go string literal, as `%#v` and `%q` print strings. */
export function goQuote(s: string): string {
  let out = '"';
  for (const cp of codePoints(s)) out += escapeRune(cp, 0x22, false);
  return out + '"';
}

/** `strconv.QuoteRuneToASCII`: a single-quoted rune literal using only ASCII. */
export function goQuoteRuneToAscii(cp: number): string {
  const safe = cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
  return "'" + escapeRune(safe, 0x27, true) + "'";
}

/** encoding/json's `quoteChar`, used in its syntax errors: one byte, shown as a Go rune literal. */
export function goJsonQuoteChar(byte: number): string {
  if (byte === 0x27) return "'\\''";
  if (byte === 0x22) return "'\"'";
  const quoted = goQuote(String.fromCodePoint(byte));
  return "'" + quoted.slice(1, -1) + "'";
}

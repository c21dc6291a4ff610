/**
 * Go's view of text, for the functions that must print or compare exactly as Kyverno (Go) does:
 * UTF-8 bytes, byte-order string comparison, and Kyverno's `ifaceToString`.
 */
import { formatFloat32 } from "../../../go/format-float32.js";

/** UTF-8 bytes of a string (lone surrogates become U+FFFD, as Go's JSON decoder would give). */
export function utf8Encode(s: string): Uint8Array {
  const out: number[] = [];
  for (const ch of s) {
    let cp = ch.codePointAt(0) ?? 0xfffd;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return Uint8Array.from(out);
}

/**
 * Decodes UTF-8 the way Go's JSON encoder reads a Go string: each byte that does not start a
 * valid sequence becomes one U+FFFD.
 */
export function utf8DecodeLossy(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i] ?? 0;
    const [cp, width] = decodeRune(bytes, i, b0);
    out += String.fromCodePoint(cp);
    i += width;
  }
  return out;
}

function cont(bytes: Uint8Array, i: number): number {
  const b = bytes[i];
  return b !== undefined && (b & 0xc0) === 0x80 ? b & 0x3f : -1;
}

function decodeRune(bytes: Uint8Array, i: number, b0: number): [number, number] {
  if (b0 < 0x80) return [b0, 1];
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(bytes, i + 1);
    if (c1 >= 0) return [((b0 & 0x1f) << 6) | c1, 2];
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = cont(bytes, i + 1);
    const c2 = cont(bytes, i + 2);
    if (c1 >= 0 && c2 >= 0) {
      const cp = ((b0 & 0x0f) << 12) | (c1 << 6) | c2;
      if (cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff)) return [cp, 3];
    }
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = cont(bytes, i + 1);
    const c2 = cont(bytes, i + 2);
    const c3 = cont(bytes, i + 3);
    if (c1 >= 0 && c2 >= 0 && c3 >= 0) {
      const cp = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
      if (cp >= 0x10000 && cp <= 0x10ffff) return [cp, 4];
    }
  }
  return [0xfffd, 1];
}

/**
 * Kyverno's `ifaceToString`: strings as they are, numbers in float32 precision, booleans as
 * `true`/`false`; anything else has no string form (undefined).
 */
export function ifaceToString(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number") return formatFloat32(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  return undefined;
}

/** Code points of a string, as Go ranges over runes. */
export function runes(s: string): string[] {
  return [...s];
}

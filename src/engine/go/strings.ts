/**
 * Go string semantics over JavaScript strings. Go compares strings byte-wise in UTF-8, which is the
 * same as comparing code points; JavaScript's `<` compares UTF-16 code units, which differs for
 * characters above U+FFFF.
 */

/** Go's `a < b` for strings, as a comparator: -1, 0 or 1. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800-0xDFFF) encode code points above 0xFFFF: they sort after 0xE000-0xFFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x < y ? -1 : 1;
    return xs ? 1 : -1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** `utf8.RuneCountInString`: the number of code points. */
export function codePointLength(s: string): number {
  let count = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** Reverses a string by code points (Go reverses its runes). */
export function reverseCodePoints(s: string): string {
  return Array.from(s).reverse().join("");
}

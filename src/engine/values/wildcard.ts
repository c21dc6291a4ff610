/**
 * Kyverno's wildcard strings (as used for names, labels, images and pattern values):
 * `*` matches any run of characters, including none; `?` matches exactly one character.
 * Matching is whole-string and case-sensitive, and works on Unicode code points.
 *
 * The matcher splits the pattern at `*` into literal segments (which may hold `?`), anchors the
 * first segment at the start and the last at the end, and places each middle segment at its
 * leftmost fit. Leftmost placement is always safe because a `*` follows each middle segment, so
 * there is no backtracking: the cost is bounded by pattern length times value length.
 */

/** True when `s` holds a wildcard character (`*` or `?`). */
export function hasWildcard(s: string): boolean {
  return s.includes("*") || s.includes("?");
}

/** Whether `value` matches the wildcard `pattern` as a whole string. */
export function wildcardMatch(pattern: string, value: string): boolean {
  if (pattern === "*") return true;
  if (!hasWildcard(pattern)) return pattern === value;
  const text = Array.from(value);
  const segments = pattern.split("*").map((s) => Array.from(s));
  const first = segments[0] ?? [];
  if (segments.length === 1) {
    return first.length === text.length && segmentFitsAt(first, text, 0);
  }
  const last = segments[segments.length - 1] ?? [];
  if (first.length + last.length > text.length) return false;
  if (!segmentFitsAt(first, text, 0)) return false;
  const lastStart = text.length - last.length;
  if (!segmentFitsAt(last, text, lastStart)) return false;
  let pos = first.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const seg = segments[i] ?? [];
    if (seg.length === 0) continue;
    const at = findSegment(seg, text, pos, lastStart);
    if (at < 0) return false;
    pos = at + seg.length;
  }
  return true;
}

/** Whether `seg` (literal characters and `?`) matches `text` starting at `at`. */
function segmentFitsAt(seg: readonly string[], text: readonly string[], at: number): boolean {
  if (at + seg.length > text.length) return false;
  for (let i = 0; i < seg.length; i++) {
    const p = seg[i];
    if (p !== "?" && p !== text[at + i]) return false;
  }
  return true;
}

/** Leftmost index >= `from` where `seg` fits entirely before `limit`, or -1. */
function findSegment(seg: readonly string[], text: readonly string[], from: number, limit: number): number {
  for (let at = from; at + seg.length <= limit; at++) {
    if (segmentFitsAt(seg, text, at)) return at;
  }
  return -1;
}

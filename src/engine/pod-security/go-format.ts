/** The small Go formatting helpers the pod-security-admission messages are built with. */
import type { PssBadValue } from "./types.js";

export function pluralize(singular: string, plural: string, n: number): string {
  return n === 1 ? singular : plural;
}

/** `"a", "b"` (no escaping, like upstream's joinQuote). */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? "" : `"${items.join('", "')}"`;
}

/** Byte-order comparison, as Go sorts strings. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A sorted, de-duplicated copy (Go's `sets.String.List()`). */
export function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(compareStrings);
}

const ESCAPES: Readonly<Record<string, string>> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
  '"': '\\"',
};

/** Go's `%q` for a string (strconv.Quote) for the characters Kubernetes values hold. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const esc = ESCAPES[ch];
    if (esc !== undefined) out += esc;
    else {
      const cp = ch.codePointAt(0) ?? 0;
      out += cp < 0x20 || cp === 0x7f ? `\\x${cp.toString(16).padStart(2, "0")}` : ch;
    }
  }
  return `${out}"`;
}

/** Go's `%+v` of a field error's BadValue. */
export function formatBadValue(bad: PssBadValue): string {
  switch (bad.kind) {
    case "strings":
      return `[${bad.value.join(" ")}]`;
    case "bool":
      return bad.value ? "true" : "false";
    case "int":
    case "int32":
      return String(bad.value);
    case "string":
      return bad.value;
  }
}

/**
 * The forbidden values Kyverno compares with an exclusion's `values` (its `extractBadValues`):
 * strings (none when empty), booleans and Go ints as text, string lists; nothing for other types.
 */
export function extractBadValues(bad: PssBadValue): string[] {
  switch (bad.kind) {
    case "string":
      return bad.value === "" ? [] : [bad.value];
    case "bool":
      return [bad.value ? "true" : "false"];
    case "int":
      return [String(bad.value)];
    case "int32":
      return [];
    case "strings":
      return [...bad.value];
  }
}

/** The small Go formatting helpers the pod-security-admission messages are built with. */
import { compareCodePoints } from "../go/strings.js";
import type { PssBadValue } from "./types.js";

export function pluralize(singular: string, plural: string, n: number): string {
  return n === 1 ? singular : plural;
}

/** `container "a"` or `containers "a", "b"`, as the messages name containers. */
export function containers(names: readonly string[]): string {
  return `${pluralize("container", "containers", names.length)} ${joinQuote(names)}`;
}

/** `"a", "b"` (no escaping, like upstream's joinQuote). */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? "" : `"${items.join('", "')}"`;
}

/** A sorted, de-duplicated copy (Go's `sets.String.List()`). */
export function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(compareCodePoints);
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

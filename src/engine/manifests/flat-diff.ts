/**
 * The comparison k8s-manifest-sigstore makes between a signed manifest ("before") and the object
 * ("after"): both are flattened to dotted keys (`spec.containers.0.image`) over their leaf values
 * (nulls, empty maps and empty lists leave no key), keys compared one by one, a list element that
 * only moved is not a difference, and a value whose type changed is reported with its types. The
 * difference list prints as Kyverno's message does: `{"items":[{"key":…,"values":{"after":…,"before":…}}]}`.
 */
import type { JsonValue } from "../api/json.js";
import { goJson, goJsonNumber } from "../go/json-encode.js";

type Leaf = string | number | boolean;

export interface Difference {
  readonly key: string;
  /** undefined: the key is absent on that side. A string when the types differ (Go's `(type: T) v`). */
  readonly before: Leaf | undefined;
  readonly after: Leaf | undefined;
}

/** Dotted key → leaf value, as mapnode's `Ravel` flattens a document. */
export function flatten(value: JsonValue, into: Map<string, Leaf> = new Map(), prefix = ""): Map<string, Leaf> {
  if (value === null) return into;
  if (Array.isArray(value)) {
    value.forEach((v, i) => flatten(v, into, prefix === "" ? String(i) : `${prefix}.${i}`));
  } else if (typeof value === "object") {
    for (const [k, v] of Object.entries(value)) flatten(v, into, prefix === "" ? k : `${prefix}.${k}`);
  } else {
    into.set(prefix, value);
  }
  return into;
}

/** The differences from `before` to `after`, sorted by key; empty when they hold the same leaves. */
export function diffDocuments(before: JsonValue, after: JsonValue): Difference[] {
  const m1 = flatten(before);
  const m2 = flatten(after);
  const items: Difference[] = [];
  const typed: Difference[] = [];
  for (const [key, v1] of m1) {
    const v2 = m2.get(key);
    if (v2 === undefined) items.push({ key, before: v1, after: undefined });
    else if (typeof v1 !== typeof v2) typed.push({ key, before: typeNote(v1), after: typeNote(v2) });
    else if (v1 !== v2) items.push({ key, before: v1, after: v2 });
  }
  for (const [key, v2] of m2) if (!m1.has(key)) items.push({ key, before: undefined, after: v2 });
  const kept = withoutMovedListItems(items);
  return [...kept, ...typed].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Go's `fmt.Sprintf("(type: %T) %s", v, v)` for a JSON leaf. */
function typeNote(v: Leaf): string {
  if (typeof v === "string") return `(type: string) ${v}`;
  if (typeof v === "boolean") return `(type: bool) %!s(bool=${v})`;
  return `(type: float64) %!s(float64=${goJsonNumber(v, "json-iterator")})`;
}

const LIST_INDEX = /\.\d+\./;

/**
 * An element removed at one index of a list and added at another (same value, same key shape with
 * another index) is a move, not a change: both halves are dropped (mapnode `removeKeyDiffsInListNode`).
 */
function withoutMovedListItems(items: readonly Difference[]): Difference[] {
  return items.filter((item) => {
    if (!LIST_INDEX.test(item.key) || (item.before !== undefined && item.after !== undefined)) return true;
    const shape = keyShape(item.key);
    if (shape === undefined) return true;
    return !items.some(
      (other) =>
        shape.test(other.key) &&
        ((item.after === undefined && other.before === undefined && other.after === item.before) ||
          (item.before === undefined && other.after === undefined && other.before === item.after)),
    );
  });
}

/** The key with each `.N.` turned into "any index", as a pattern; other characters as Go's regexp reads them. */
function keyShape(key: string): RegExp | undefined {
  try {
    return new RegExp(key.replace(/\.\d+\./g, "\\.\\d+\\."));
  } catch {
    return undefined;
  }
}

/** The difference list as k8s-manifest-sigstore prints it (Go's encoding/json: sorted keys, HTML-safe). */
export function diffString(items: readonly Difference[]): string {
  if (items.length === 0) return "";
  const json = (v: Leaf | undefined): string => (v === undefined ? "null" : goJson(v));
  return `{"items":[${items.map((d) => `{"key":${goJson(d.key)},"values":{"after":${json(d.after)},"before":${json(d.before)}}}`).join(",")}]}`;
}

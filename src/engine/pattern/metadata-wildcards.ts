/**
 * Wildcard keys under `metadata.labels` and `metadata.annotations` (`wildcards.ExpandInMetadata`).
 * A pattern key such as `app.kubernetes.io/*` (anchored or not) is replaced by the first real
 * resource key it matches, keeping its anchor; a key matching nothing stays as written.
 * Kyverno walks the resource keys in Go's random map order; we take them in document order.
 *
 * The pattern side is read once, when the pattern compiles; a match only reads the resource.
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { Anchor } from "../anchors/index.js";
import { anchorToString, parseAnchor } from "../anchors/index.js";
import { hasWildcard } from "../values/wildcard.js";
import type { MapNode } from "./compile.js";
import type { WildcardMatcher } from "./wildcard-matcher.js";
import { compileWildcard } from "./wildcard-matcher.js";

/**
 * The map pattern compiled with its wildcard metadata keys expanded against the resource, or
 * `undefined` when nothing expands (no such metadata in the resource).
 */
export type MetadataExpansion = (resource: JsonObject) => MapNode | undefined;

interface TagExpansion {
  readonly tag: string;
  /** The tag's key in the pattern's metadata, as written (maybe anchored). */
  readonly patternKey: string;
  readonly entries: readonly PatternLabel[];
}

interface PatternLabel {
  readonly raw: string;
  readonly value: string;
  /** For a wildcard key: its anchor, if any, and the wildcard without the anchor. */
  readonly wildcard:
    { readonly anchor: Anchor | undefined; readonly inner: string; readonly matches: WildcardMatcher } | undefined;
}

/** How many expanded patterns one map pattern keeps compiled; past that the memo starts again. */
const MEMO_LIMIT = 32;

/**
 * The expansion of a map pattern, or `undefined` when it has no wildcard label or annotation key.
 * The expanded pattern depends only on the resource keys the wildcards pick, so the compiled
 * pattern for each such choice is kept: resources with the same labels and annotations keys do
 * not compile it again.
 */
export function compileMetadataExpansion(
  pattern: JsonObject,
  compile: (expanded: JsonObject) => MapNode,
): MetadataExpansion | undefined {
  const metaKey = findTag(pattern, "metadata");
  const patternMeta = metaKey === undefined ? undefined : pattern[metaKey];
  if (metaKey === undefined || !isObject(patternMeta)) return undefined;
  const tags: TagExpansion[] = [];
  for (const tag of ["labels", "annotations"]) {
    const patternKey = findTag(patternMeta, tag);
    const data = patternKey === undefined ? undefined : patternMeta[patternKey];
    if (patternKey === undefined || !isStringMap(data) || !Object.keys(data).some(hasWildcard)) continue;
    tags.push({
      tag,
      patternKey,
      entries: Object.entries(data).map(([raw, value]) => patternLabel(raw, value as string)),
    });
  }
  if (tags.length === 0) return undefined;
  const memo = new Map<string, MapNode>();
  return (resource) => {
    const resourceMeta = resource["metadata"];
    if (!isObject(resourceMeta)) return undefined;
    // Per tag, the resource keys picked (undefined: the tag does not expand).
    const picked = tags.map((t) => {
      const resourceKey = findTag(resourceMeta, t.tag);
      const resourceData = resourceKey === undefined ? undefined : resourceMeta[resourceKey];
      return isStringMap(resourceData) ? pickKeys(t.entries, Object.keys(resourceData)) : undefined;
    });
    if (picked.every((p) => p === undefined)) return undefined;
    // JSON text, not a join: no two choices share it, whatever characters the resource keys hold.
    const signature = JSON.stringify(picked);
    let node = memo.get(signature);
    if (node === undefined) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      node = compile(expandPattern(pattern, metaKey, patternMeta, tags, picked));
      memo.set(signature, node);
    }
    return node;
  };
}

/** The resource key each wildcard entry takes (its own wildcard when none matches), in entry order. */
function pickKeys(entries: readonly PatternLabel[], resourceKeys: readonly string[]): string[] {
  const out: string[] = [];
  for (const { wildcard } of entries) {
    if (wildcard !== undefined) out.push(resourceKeys.find(wildcard.matches) ?? wildcard.inner);
  }
  return out;
}

function expandPattern(
  pattern: JsonObject,
  metaKey: string,
  patternMeta: JsonObject,
  tags: readonly TagExpansion[],
  picked: readonly (readonly string[] | undefined)[],
): JsonObject {
  let newMeta: JsonObject = patternMeta;
  tags.forEach((t, i) => {
    const keys = picked[i];
    if (keys !== undefined) newMeta = { ...newMeta, [t.patternKey]: expandTag(t.entries, keys) };
  });
  return { ...pattern, [metaKey]: newMeta };
}

function patternLabel(raw: string, value: string): PatternLabel {
  if (!hasWildcard(raw)) return { raw, value, wildcard: undefined };
  const anchor = parseAnchor(raw);
  const inner = anchor === undefined ? raw : anchor.key;
  return { raw, value, wildcard: { anchor, inner, matches: compileWildcard(inner) } };
}

function expandTag(entries: readonly PatternLabel[], picked: readonly string[]): JsonObject {
  const result: JsonObject = {};
  let next = 0;
  for (const { raw, value, wildcard } of entries) {
    if (wildcard === undefined) {
      result[raw] = value;
      continue;
    }
    const match = picked[next++] ?? wildcard.inner;
    result[wildcard.anchor === undefined ? match : anchorToString(wildcard.anchor.kind, match)] = value;
  }
  return result;
}

/** A map whose values are all strings (Kyverno requires this here). */
function isStringMap(value: JsonValue | undefined): value is JsonObject {
  if (!isObject(value)) return false;
  for (const k in value) if (Object.hasOwn(value, k) && typeof value[k] !== "string") return false;
  return true;
}

/** Finds `tag` in a map, plain or anchored (Kyverno's `getPatternValue`), first match wins. */
function findTag(map: JsonObject, tag: string): string | undefined {
  for (const k of Object.keys(map)) {
    if (k === tag || parseAnchor(k)?.key === tag) return k;
  }
  return undefined;
}

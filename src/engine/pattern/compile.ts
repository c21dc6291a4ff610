/**
 * Compiles a pattern tree once: anchors parsed, map keys put in Kyverno's evaluation order,
 * string leaves parsed into operators and ranges.
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { Anchor } from "../anchors/index.js";
import { parseAnchor } from "../anchors/index.js";
import { compareCodePoints } from "../go/strings.js";
import type { LeafTest } from "./leaf.js";
import { compileLeaf } from "./leaf.js";
import type { MetadataExpansion } from "./metadata-wildcards.js";
import { compileMetadataExpansion } from "./metadata-wildcards.js";
import type { OwnReader } from "./own-reader.js";
import { ownReader } from "./own-reader.js";

export type PatternNode = MapNode | ArrayNode | LeafNode;

interface LeafNode {
  readonly kind: "leaf";
  readonly pattern: string | number | boolean | null;
  readonly test: LeafTest;
}

export interface ArrayNode {
  readonly kind: "array";
  /** `maps`: the first element (a map) applies to every resource element; `scalar`: every element
   *  must match the first element; `positional`: element i against element i; `empty`: an error. */
  readonly shape: "empty" | "maps" | "scalar" | "positional";
  readonly items: readonly PatternNode[];
  readonly length: number;
}

/** An anchored key evaluated in the first phase: `(k)`, `=(k)`, `X(k)`, `^(k)`. */
export interface AnchorEntry {
  readonly raw: string;
  readonly anchor: Anchor;
  /** Reads the anchor's key (`anchor.key`) from a resource map. */
  readonly read: OwnReader;
  readonly node: PatternNode;
  readonly pattern: JsonValue;
  /** For `^(k)`: the list items as map nodes, or why the pattern is not a list of maps. */
  readonly existence?: ExistenceSpec;
}

type ExistenceSpec = { readonly ok: true; readonly items: readonly (MapNode | undefined)[] } | { readonly ok: false };

/** A key evaluated in the second phase: plain keys, global anchors `<(k)` and `+(k)` taken literally. */
export interface PlainEntry {
  readonly raw: string;
  /** Set for a global anchor `<(k)`. */
  readonly global?: Anchor;
  /** Reads the key (the global anchor's key, else `raw`) from a resource map. */
  readonly read: OwnReader;
  readonly node: PatternNode;
  /** The pattern value is exactly `"*"`: the key must exist with a non-null value. */
  readonly star: boolean;
}

export interface MapNode {
  readonly kind: "map";
  readonly pattern: JsonObject;
  readonly anchors: readonly AnchorEntry[];
  readonly plain: readonly PlainEntry[];
  /** Condition, existence and negation anchors, tracked for Kyverno's "anchor key missing" check. */
  readonly tracked: readonly { readonly raw: string; readonly key: string }[];
  /** Set when `metadata.labels` / `metadata.annotations` below hold wildcard keys to expand. */
  readonly expand: MetadataExpansion | undefined;
}

export function compileNode(pattern: JsonValue): PatternNode {
  if (Array.isArray(pattern)) return compileArray(pattern);
  if (isObject(pattern)) return compileMap(pattern);
  return { kind: "leaf", pattern, test: compileLeaf(pattern) };
}

function compileArray(pattern: readonly JsonValue[]): ArrayNode {
  const first = pattern[0];
  if (first === undefined) return { kind: "array", shape: "empty", items: [], length: 0 };
  if (isObject(first)) return { kind: "array", shape: "maps", items: [compileMap(first)], length: pattern.length };
  if (!Array.isArray(first))
    return { kind: "array", shape: "scalar", items: [compileNode(first)], length: pattern.length };
  return { kind: "array", shape: "positional", items: pattern.map(compileNode), length: pattern.length };
}

function compileMap(pattern: JsonObject): MapNode {
  const anchors: AnchorEntry[] = [];
  const front: PlainEntry[] = [];
  const back: PlainEntry[] = [];
  const tracked: { raw: string; key: string }[] = [];
  const keys = Object.keys(pattern).sort(compareCodePoints);
  for (const raw of keys) {
    const value = pattern[raw] as JsonValue;
    const anchor = parseAnchor(raw);
    if (anchor !== undefined && anchor.kind !== "global" && anchor.kind !== "addIfNotPresent") {
      if (anchor.kind !== "equality") tracked.push({ raw, key: anchor.key });
      anchors.push(anchorEntry(raw, anchor, value));
      continue;
    }
    const entry: PlainEntry = {
      raw,
      ...(anchor?.kind === "global" ? { global: anchor } : {}),
      read: ownReader(anchor?.kind === "global" ? anchor.key : raw),
      node: compileNode(value),
      star: value === "*",
    };
    // Global anchors and keys whose values hold anchors go first, in reverse key order
    // (Kyverno pushes each to the front of its list while walking the sorted keys).
    if (anchor?.kind === "global" || hasNestedAnchors(value)) front.unshift(entry);
    else back.push(entry);
  }
  return {
    kind: "map",
    pattern,
    anchors,
    plain: [...front, ...back],
    tracked,
    expand: compileMetadataExpansion(pattern, compileMap),
  };
}

function anchorEntry(raw: string, anchor: Anchor, value: JsonValue): AnchorEntry {
  const base = { raw, anchor, read: ownReader(anchor.key), node: compileNode(value), pattern: value };
  if (anchor.kind !== "existence") return base;
  if (!Array.isArray(value)) return { ...base, existence: { ok: false } };
  return { ...base, existence: { ok: true, items: value.map((v) => (isObject(v) ? compileMap(v) : undefined)) } };
}

/** Whether a pattern value holds an anchored key anywhere below it (`hasNestedAnchors`). */
function hasNestedAnchors(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(hasNestedAnchors);
  if (!isObject(value)) return false;
  for (const [k, v] of Object.entries(value)) {
    const a = parseAnchor(k);
    if (a !== undefined && a.kind !== "addIfNotPresent") return true;
    if (hasNestedAnchors(v)) return true;
  }
  return false;
}

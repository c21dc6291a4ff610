/**
 * The pattern walk reduced to its verdict: a compiled pattern node becomes a tree of closures that
 * say only whether a resource value passes, would be skipped, or fails — no message, no path, no
 * "anchor key missing" bookkeeping, and no allocation. Each closure holds its own keys and
 * children, so nothing is dispatched or looked up again at match time.
 *
 * It follows `walk.ts` and `key-handlers.ts` step for step (the same order, the same early
 * returns), so its verdict is the kind of the mismatch the walk would return. A resource that
 * passes never needs more; any other verdict is explained by running the full walk, which writes
 * Kyverno's messages and paths (see `match-pattern.ts`). Each list item ticks the caller's
 * interruption (engine/interrupt).
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { AnchorEntry, ArrayNode, MapNode, PatternNode, PlainEntry } from "./compile.js";
import type { LeafTest } from "./leaf.js";
import type { OwnReader } from "./own-reader.js";
import { tick } from "../interrupt/index.js";

/** `PASS`: no mismatch; `SKIP`: a mismatch that means skip (`isSkip`); `FAIL`: any other mismatch. */
export const PASS = 0;
export const SKIP = 1;
export const FAIL = 2;
export type Verdict = typeof PASS | typeof SKIP | typeof FAIL;

/** The verdict of one resource value (`undefined`: the key is absent). */
export type VerdictTest = (value: JsonValue | undefined) => Verdict;

/** The verdict of one pattern key against the resource map it sits in. */
type EntryTest = (map: JsonObject) => Verdict;

export function compileVerdict(node: PatternNode): VerdictTest {
  switch (node.kind) {
    case "map":
      return mapVerdict(node);
    case "array":
      return arrayVerdict(node);
    case "leaf":
      return leafVerdict(node.test);
  }
}

function leafVerdict(test: LeafTest): VerdictTest {
  return (value) => {
    if (!Array.isArray(value)) return test(value) ? PASS : FAIL;
    for (let i = 0; i < value.length; i++) {
      tick();
      if (!test(value[i])) return FAIL;
    }
    return PASS;
  };
}

function mapVerdict(node: MapNode): VerdictTest {
  const body = mapBody(node);
  const expand = node.expand;
  if (expand === undefined) return (value) => (isObject(value) ? body(value) : FAIL);
  // The expansion keeps its compiled patterns; their verdict closures are kept beside them.
  const bodies = new WeakMap<MapNode, EntryTest>();
  return (value) => {
    if (!isObject(value)) return FAIL;
    const expanded = expand(value);
    if (expanded === undefined) return body(value);
    let expandedBody = bodies.get(expanded);
    if (expandedBody === undefined) {
      expandedBody = mapBody(expanded);
      bodies.set(expanded, expandedBody);
    }
    return expandedBody(value);
  };
}

/** `walkMap`: anchored keys first, gathering skips, then plain keys up to the first mismatch. */
function mapBody(node: MapNode): EntryTest {
  const plain = node.plain.map(plainVerdict);
  const plainCount = plain.length;
  if (node.anchors.length === 0) {
    return (map) => {
      for (let i = 0; i < plainCount; i++) {
        const v = (plain[i] as EntryTest)(map);
        if (v !== PASS) return v;
      }
      return PASS;
    };
  }
  const anchors = node.anchors.map(anchorVerdict);
  const isCondition = node.anchors.map((a) => a.anchor.kind === "condition");
  const anchorCount = anchors.length;
  return (map) => {
    let skips = 0;
    let applied = 0;
    let conditionSkipped = false;
    for (let i = 0; i < anchorCount; i++) {
      const v = (anchors[i] as EntryTest)(map);
      if (v === PASS) {
        applied++;
      } else if (v === SKIP) {
        skips++;
        if (isCondition[i] === true) conditionSkipped = true;
      } else if (!conditionSkipped) {
        return FAIL;
      }
    }
    if (skips !== 0 && (applied === 0 || conditionSkipped)) return SKIP;
    for (let i = 0; i < plainCount; i++) {
      const v = (plain[i] as EntryTest)(map);
      if (v !== PASS) return v;
    }
    return skips !== 0 ? SKIP : PASS;
  };
}

/** `handleAnchor`, one closure per anchor kind. */
function anchorVerdict(entry: AnchorEntry): EntryTest {
  const read = entry.read;
  switch (entry.anchor.kind) {
    case "condition": {
      const child = compileVerdict(entry.node);
      return (map) => {
        const value = read(map);
        return value !== undefined && child(value) === PASS ? PASS : SKIP;
      };
    }
    case "equality": {
      const child = compileVerdict(entry.node);
      return (map) => {
        const value = read(map);
        return value === undefined ? PASS : child(value);
      };
    }
    case "negation":
      return (map) => (read(map) === undefined ? PASS : FAIL);
    case "existence":
      return existenceVerdict(entry, read);
    default:
      return () => PASS;
  }
}

/** `^(k)`: every map of the pattern list must pass against at least one element of the resource list. */
function existenceVerdict(entry: AnchorEntry, read: OwnReader): EntryTest {
  const spec = entry.existence;
  if (spec === undefined || !spec.ok) {
    return (map) => (read(map) === undefined ? PASS : FAIL);
  }
  // An item that is not a map fails the anchor when reached; items before it still run first,
  // but they cannot change a fail into anything else, so the anchor simply fails.
  const items = spec.items.map((item) => (item === undefined ? undefined : mapVerdict(item)));
  const malformed = items.includes(undefined);
  return (map) => {
    const list = read(map);
    if (list === undefined) return PASS;
    if (!Array.isArray(list) || malformed) return FAIL;
    for (const item of items as VerdictTest[]) {
      let found = false;
      for (let i = 0; i < list.length && !found; i++) {
        tick();
        found = item(list[i]) === PASS;
      }
      if (!found) return FAIL;
    }
    return PASS;
  };
}

/** `handlePlain`: a global anchor, a `"*"` value, or a plain key. */
function plainVerdict(entry: PlainEntry): EntryTest {
  const read = entry.read;
  if (entry.star && entry.global === undefined) {
    return (map) => {
      const value = read(map);
      return value === undefined || value === null ? FAIL : PASS;
    };
  }
  const child = compileVerdict(entry.node);
  if (entry.global !== undefined) {
    return (map) => {
      const value = read(map);
      return value !== undefined && child(value) !== PASS ? SKIP : PASS;
    };
  }
  return (map) => child(read(map));
}

/** `walkArray` and `walkEach`: when every element is skipped, the array is a skip. */
function arrayVerdict(node: ArrayNode): VerdictTest {
  switch (node.shape) {
    case "empty":
      return () => FAIL;
    case "scalar": {
      // The one scalar item is a leaf, tested against every element of the list.
      const child = compileVerdict(node.items[0] as PatternNode);
      return (value) => (Array.isArray(value) ? child(value) : FAIL);
    }
    case "maps": {
      const child = compileVerdict(node.items[0] as PatternNode);
      return (value) => {
        if (!Array.isArray(value)) return FAIL;
        let skips = 0;
        let applied = 0;
        for (let i = 0; i < value.length; i++) {
          tick();
          const v = child(value[i]);
          if (v === PASS) applied++;
          else if (v === SKIP) skips++;
          else return FAIL;
        }
        return applied === 0 && skips !== 0 ? SKIP : PASS;
      };
    }
    case "positional": {
      const children = node.items.map(compileVerdict);
      const length = node.length;
      return (value) => {
        if (!Array.isArray(value) || value.length < length) return FAIL;
        let skips = 0;
        let applied = 0;
        for (let i = 0; i < length; i++) {
          const v = (children[i] as VerdictTest)(value[i]);
          if (v === PASS) applied++;
          else if (v === SKIP) skips++;
          else return FAIL;
        }
        return applied === 0 && skips !== 0 ? SKIP : PASS;
      };
    }
  }
}

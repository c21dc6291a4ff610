/**
 * The pattern walk (`validate.validateResourceElement` and friends): compares a resource value
 * with a compiled pattern node and returns the first mismatch Kyverno would report, if any.
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { ArrayNode, MapNode, PatternNode } from "./compile.js";
import { goTypeName, goValueString } from "./go-format.js";
import { handleAnchor, handlePlain } from "./key-handlers.js";
import type { Mismatch } from "./pattern-error.js";
import { combinedSkip, isSkip, plain } from "./pattern-error.js";
import type { WalkContext } from "./walk-context.js";
import { tick } from "../interrupt/index.js";

/** Walks `resource` at the context's current path (`ctx.path()`). */
export function walkElement(
  resource: JsonValue | undefined,
  node: PatternNode,
  ctx: WalkContext,
): Mismatch | undefined {
  switch (node.kind) {
    case "map":
      if (!isObject(resource)) {
        return plain(
          `pattern and resource have different structures. Path: ${ctx.path()}. Expected map[string]interface {}, found ${goTypeName(resource)}`,
          ctx.path(),
        );
      }
      ctx.track(node.tracked, resource);
      return walkMap(resource, node, ctx);
    case "array":
      if (!Array.isArray(resource)) {
        return plain(
          `validation rule failed at path ${ctx.path()}, resource does not satisfy the expected overlay pattern`,
          ctx.path(),
        );
      }
      return walkArray(resource, node, ctx);
    case "leaf": {
      if (
        Array.isArray(resource)
          ? resource.every((v) => {
              tick();
              return node.test(v);
            })
          : node.test(resource)
      )
        return undefined;
      return plain(
        `resource value '${goValueString(resource)}' does not match '${goValueString(node.pattern)}' at path ${ctx.path()}`,
        ctx.path(),
      );
    }
  }
}

/**
 * Anchored keys first (sorted), then plain keys. Skips from anchors are gathered: a mismatched
 * conditional anchor makes the whole map a skip (later failures of sibling anchors do not count),
 * while a skip coming from below an equality anchor lets sibling anchors still fail the map.
 * If every anchor skipped, plain keys are not checked. Plain keys stop at the first mismatch.
 */
function walkMap(resource: JsonObject, compiled: MapNode, ctx: WalkContext): Mismatch | undefined {
  const node = (compiled.expand === undefined ? undefined : compiled.expand(resource)) ?? compiled;
  // Allocated on the first skip only: most maps have none.
  let skips: Mismatch[] | undefined;
  let applied = 0;
  let conditionSkipped = false;
  for (const entry of node.anchors) {
    const m = handleAnchor(entry, resource, ctx);
    if (m === undefined) {
      applied++;
    } else if (isSkip(m)) {
      (skips ??= []).push(m);
      if (entry.anchor.kind === "condition") conditionSkipped = true;
    } else if (!conditionSkipped) {
      return m;
    }
  }
  if (skips !== undefined && (applied === 0 || conditionSkipped)) return skipOf(skips, ctx);
  for (const entry of node.plain) {
    const m = handlePlain(entry, resource, ctx);
    if (m !== undefined) return m;
  }
  return skips !== undefined ? skipOf(skips, ctx) : undefined;
}

function skipOf(skips: readonly Mismatch[], ctx: WalkContext): Mismatch {
  const only = skips[0];
  return skips.length === 1 && only !== undefined ? only : combinedSkip("mapSkip", skips, ctx.path());
}

function walkArray(resource: readonly JsonValue[], node: ArrayNode, ctx: WalkContext): Mismatch | undefined {
  switch (node.shape) {
    case "empty":
      return plain("pattern Array empty", ctx.path());
    case "scalar": {
      const item = node.items[0];
      return item === undefined ? undefined : walkElement(resource as JsonValue[], item, ctx);
    }
    case "maps":
      return walkEach(resource, node.items, false, resource.length, ctx);
    case "positional":
      if (resource.length < node.length) {
        return plain(
          `validate Array failed, array length mismatch, resource Array len is ${resource.length} and pattern Array len is ${node.length}`,
          "",
        );
      }
      return walkEach(resource, node.items, true, node.length, ctx);
  }
}

/** Walks elements; skipped elements are counted, and when every element skipped the array is a skip. */
function walkEach(
  resource: readonly JsonValue[],
  items: readonly (PatternNode | undefined)[],
  positional: boolean,
  count: number,
  ctx: WalkContext,
): Mismatch | undefined {
  let skips: Mismatch[] | undefined;
  let applied = 0;
  for (let i = 0; i < count; i++) {
    const item = positional ? items[i] : items[0];
    if (item === undefined) continue;
    tick();
    ctx.enter(i);
    const m = walkElement(resource[i], item, ctx);
    ctx.leave();
    if (m === undefined) applied++;
    else if (isSkip(m)) (skips ??= []).push(m);
    else return m;
  }
  return applied === 0 && skips !== undefined ? combinedSkip("arraySkip", skips, ctx.path()) : undefined;
}

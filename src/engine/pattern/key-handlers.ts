/**
 * One handler per kind of pattern key (`anchor/handlers.go`): conditional `(k)`, equality `=(k)`,
 * negation `X(k)`, existence `^(k)`, global `<(k)`, and plain keys (with the `"*"` special case).
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import type { AnchorEntry, PlainEntry } from "./compile.js";
import { goTypeName } from "./go-format.js";
import type { Mismatch } from "./pattern-error.js";
import { conditionMismatch, globalMismatch, negationMismatch, plain } from "./pattern-error.js";
import { walkElement } from "./walk.js";
import type { WalkContext } from "./walk-context.js";
import { tick } from "../interrupt/index.js";

export function handleAnchor(entry: AnchorEntry, resource: JsonObject, ctx: WalkContext): Mismatch | undefined {
  const key = entry.anchor.key;
  const value = entry.read(resource);
  const present = value !== undefined;
  switch (entry.anchor.kind) {
    case "condition": {
      ctx.enter(key);
      const m = present ? walkElement(value, entry.node, ctx) : undefined;
      const out = present
        ? m === undefined
          ? undefined
          : conditionMismatch(m.message, m.path)
        : conditionMismatch("conditional anchor key doesn't exist in the resource", ctx.path());
      ctx.leave();
      return out;
    }
    case "equality":
      return present ? child(key, value, entry.node, ctx) : undefined;
    case "negation": {
      if (!present) return undefined;
      ctx.enter(key);
      const m = negationMismatch(ctx.path());
      ctx.leave();
      return m;
    }
    case "existence": {
      if (!present) return undefined;
      ctx.enter(key);
      const m = existence(entry, value, ctx);
      ctx.leave();
      return m;
    }
    default:
      return undefined;
  }
}

/** Walks `value`, found under `key` of the current map. */
function child(
  key: string,
  value: JsonValue | undefined,
  node: AnchorEntry["node"],
  ctx: WalkContext,
): Mismatch | undefined {
  ctx.enter(key);
  const m = walkElement(value, node, ctx);
  ctx.leave();
  return m;
}

/** `^(k)`: every map in the pattern list must match at least one element of the resource list. */
function existence(entry: AnchorEntry, value: JsonValue | undefined, ctx: WalkContext): Mismatch | undefined {
  if (!Array.isArray(value)) {
    return plain(
      `invalid resource type ${goTypeName(value)}: Existence ^ () anchor can be used only on list/array type resource`,
      ctx.path(),
    );
  }
  const spec = entry.existence;
  if (spec === undefined || !spec.ok) {
    return plain(
      `invalid pattern type ${goTypeName(entry.pattern)}: Pattern has to be of list to compare against resource`,
      ctx.path(),
    );
  }
  for (const item of spec.items) {
    if (item === undefined) {
      return plain(
        `invalid pattern type ${goTypeName(entry.pattern)}: Pattern has to be of type map to compare against items in resource`,
        ctx.path(),
      );
    }
    let found = false;
    for (let i = 0; i < value.length && !found; i++) {
      tick();
      ctx.enter(i);
      found = walkElement(value[i], item, ctx) === undefined;
      ctx.leave();
    }
    if (!found) return plain(`existence anchor validation failed at path ${ctx.path()}`, ctx.path());
  }
  return undefined;
}

export function handlePlain(entry: PlainEntry, resource: JsonObject, ctx: WalkContext): Mismatch | undefined {
  const value = entry.read(resource);
  if (entry.global !== undefined) {
    if (value === undefined) return undefined;
    const m = child(entry.global.key, value, entry.node, ctx);
    return m === undefined ? undefined : globalMismatch(m.message, m.path);
  }
  if (entry.star) {
    if (value !== undefined && value !== null) return undefined;
    return plain(`${ctx.path()}/${entry.raw} not found`, ctx.path());
  }
  return child(entry.raw, value, entry.node, ctx);
}

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
import { own } from "./walk-context.js";

export function handleAnchor(entry: AnchorEntry, resource: JsonObject, path: string, ctx: WalkContext): Mismatch | undefined {
  const key = entry.anchor.key;
  const present = Object.hasOwn(resource, key);
  // The child path is built only when the key is there or a message needs it: most anchored keys are absent.
  switch (entry.anchor.kind) {
    case "condition": {
      if (!present) return conditionMismatch("conditional anchor key doesn't exist in the resource", `${path}${key}/`);
      const m = walkElement(own(resource, key), entry.node, `${path}${key}/`, ctx);
      return m === undefined ? undefined : conditionMismatch(m.message, m.path);
    }
    case "equality":
      return present ? walkElement(own(resource, key), entry.node, `${path}${key}/`, ctx) : undefined;
    case "negation":
      return present ? negationMismatch(`${path}${key}/`) : undefined;
    case "existence":
      return present ? existence(entry, own(resource, key), `${path}${key}/`, ctx) : undefined;
    default:
      return undefined;
  }
}

/** `^(k)`: every map in the pattern list must match at least one element of the resource list. */
function existence(entry: AnchorEntry, value: JsonValue | undefined, current: string, ctx: WalkContext): Mismatch | undefined {
  if (!Array.isArray(value)) {
    return plain(`invalid resource type ${goTypeName(value)}: Existence ^ () anchor can be used only on list/array type resource`, current);
  }
  const spec = entry.existence;
  if (spec === undefined || !spec.ok) {
    return plain(`invalid pattern type ${goTypeName(entry.pattern)}: Pattern has to be of list to compare against resource`, current);
  }
  for (const item of spec.items) {
    if (item === undefined) {
      return plain(
        `invalid pattern type ${goTypeName(entry.pattern)}: Pattern has to be of type map to compare against items in resource`,
        current,
      );
    }
    const found = value.some((element, i) => walkElement(element, item, `${current}${i}/`, ctx) === undefined);
    if (!found) return plain(`existence anchor validation failed at path ${current}`, current);
  }
  return undefined;
}

export function handlePlain(entry: PlainEntry, resource: JsonObject, path: string, ctx: WalkContext): Mismatch | undefined {
  if (entry.global !== undefined) {
    const key = entry.global.key;
    if (!Object.hasOwn(resource, key)) return undefined;
    const m = walkElement(own(resource, key), entry.node, `${path}${key}/`, ctx);
    return m === undefined ? undefined : globalMismatch(m.message, m.path);
  }
  const value = own(resource, entry.raw);
  if (entry.star) {
    if (value !== undefined && value !== null) return undefined;
    return plain(`${path}/${entry.raw} not found`, path);
  }
  return walkElement(value, entry.node, `${path}${entry.raw}/`, ctx);
}

import type { JsonObject } from "../api/json.js";

/**
 * Per-match bookkeeping (Kyverno's `AnchorMap`): for each condition, existence and negation
 * anchor met during the walk, whether any visited resource map held its key. A failure while some
 * such key was never present is reported as an error rather than a fail.
 */
export class WalkContext {
  /** Created on the first anchor seen: most patterns track none. */
  private seen: Map<string, boolean> | undefined;

  track(anchors: readonly { readonly raw: string; readonly key: string }[], resource: JsonObject): void {
    if (anchors.length === 0) return;
    const seen = (this.seen ??= new Map<string, boolean>());
    for (const a of anchors) {
      if (seen.get(a.raw) === true) continue;
      seen.set(a.raw, Object.hasOwn(resource, a.key));
    }
  }

  keysAreMissing(): boolean {
    if (this.seen === undefined) return false;
    for (const present of this.seen.values()) if (!present) return true;
    return false;
  }
}

/** A map's own value for `key` (never an inherited property), `undefined` when absent. */
export function own(map: JsonObject, key: string): JsonObject[string] | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

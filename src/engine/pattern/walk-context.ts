import type { JsonObject } from "../api/json.js";

/**
 * Per-match bookkeeping (Kyverno's `AnchorMap`): for each condition, existence and negation
 * anchor met during the walk, whether any visited resource map held its key. A failure while some
 * such key was never present is reported as an error rather than a fail.
 */
export class WalkContext {
  private readonly seen = new Map<string, boolean>();

  track(anchors: readonly { readonly raw: string; readonly key: string }[], resource: JsonObject): void {
    for (const a of anchors) {
      if (this.seen.get(a.raw) === true) continue;
      this.seen.set(a.raw, Object.hasOwn(resource, a.key));
    }
  }

  keysAreMissing(): boolean {
    for (const present of this.seen.values()) if (!present) return true;
    return false;
  }
}

/** A map's own value for `key` (never an inherited property), `undefined` when absent. */
export function own(map: JsonObject, key: string): JsonObject[string] | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

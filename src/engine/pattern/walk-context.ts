import type { JsonObject } from "../api/json.js";

/**
 * Per-match bookkeeping (Kyverno's `AnchorMap`): for each condition, existence and negation
 * anchor met during the walk, whether any visited resource map held its key. A failure while some
 * such key was never present is reported as an error rather than a fail.
 */
export class WalkContext {
  /** Created on the first anchor seen: most patterns track none. */
  private seen: Map<string, boolean> | undefined;
  /**
   * The keys and indexes from the root to the value being walked. The path text is only built
   * when a mismatch needs it: walking a resource that matches builds no strings.
   */
  private readonly segments: string[] = ["", "", "", "", "", "", "", ""];
  private depth = 0;

  enter(segment: string | number): void {
    const text = typeof segment === "number" ? String(segment) : segment;
    if (this.depth < this.segments.length) this.segments[this.depth] = text;
    else this.segments.push(text);
    this.depth++;
  }

  leave(): void {
    this.depth--;
  }

  /** Kyverno's path of the current value: `/` at the root, else `/a/b/0/` (a trailing slash). */
  path(): string {
    let out = "/";
    for (let i = 0; i < this.depth; i++) out += `${this.segments[i] ?? ""}/`;
    return out;
  }

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

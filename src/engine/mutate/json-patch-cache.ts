/**
 * Parsed `patchesJson6902` texts, per policy. A patch without variables is the same text on every
 * request, so it is parsed once; substituted texts (e.g. foreach paths with `{{elementIndex}}`) are
 * kept too, up to a bound, oldest dropped first.
 */
import type { Result } from "../api/result.js";
import { parseJsonPatch, type JsonPatchOp } from "./json-patch/index.js";

export class JsonPatchCache {
  private readonly parsed = new Map<string, Result<JsonPatchOp[]>>();

  constructor(private readonly limit = 128) {}

  get(text: string): Result<JsonPatchOp[]> {
    let hit = this.parsed.get(text);
    if (hit === undefined) {
      hit = parseJsonPatch(text);
      if (this.parsed.size >= this.limit) {
        const oldest = this.parsed.keys().next();
        if (oldest.done !== true) this.parsed.delete(oldest.value);
      }
      this.parsed.set(text, hit);
    }
    return hit;
  }
}

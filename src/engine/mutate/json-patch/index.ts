/** RFC 6902 JSON Patch: Kyverno's `patchesJson6902` and the admission webhook's response patch. */
export type { JsonPatchOp } from "./types.js";
export { parseJsonPatch, parseJsonPatchValue } from "./parse.js";
export { applyJsonPatch } from "./apply.js";
export { createJsonPatch } from "./diff.js";

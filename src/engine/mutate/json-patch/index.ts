/** RFC 6902 JSON Patch: Kyverno's `patchesJson6902`, the JSONPatch mutations of the CEL kinds (apply-v4.ts) and the admission webhook's response patch. */
export type { JsonPatchOp } from "./types.js";
export { parseJsonPatch, parseJsonPatchValue } from "./parse.js";
export { applyJsonPatch } from "./apply.js";
export { applyJsonPatchV4, operationsV4 } from "./apply-v4.js";
export { createJsonPatch } from "./diff.js";

/**
 * Apply one (already substituted) patch to a resource: a strategic-merge overlay with Kyverno's
 * anchors, or an RFC 6902 patch written as a YAML/JSON string. Failures are values with a reason.
 */
import type { JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { err, ok, type Result } from "../api/result.js";
import { applyJsonPatch, parseJsonPatch, parseJsonPatchValue } from "./json-patch/index.js";
import type { JsonPatchCache } from "./json-patch-cache.js";
import { preprocessOverlay, type AnchorMismatch } from "./overlay/index.js";
import { strategicMergeResource } from "./strategic/index.js";

export type Patched = { readonly resource: Resource; readonly mismatch?: AnchorMismatch };

export function applyOverlay(resource: Resource, overlay: JsonValue): Result<Patched> {
  const pre = preprocessOverlay(overlay, resource);
  if (!pre.ok) return ok({ resource, mismatch: pre.mismatch });
  if (!isObject(pre.patch))
    return err("mutate-patch", `patchStrategicMerge must be a mapping, got ${describe(pre.patch)}`);
  const merged = strategicMergeResource(resource, pre.patch);
  if (!merged.ok) return err("mutate-patch", `failed to apply patchStrategicMerge: ${merged.error.message}`);
  return ok({ resource: merged.value });
}

export function applyJson6902(resource: Resource, patch: JsonValue, cache?: JsonPatchCache): Result<Patched> {
  const ops = typeof patch === "string" ? (cache?.get(patch) ?? parseJsonPatch(patch)) : parseJsonPatchValue(patch);
  if (!ops.ok) return err("mutate-patch", ops.error.message);
  const applied = applyJsonPatch(resource, ops.value);
  if (!applied.ok) return err("mutate-patch", applied.error.message);
  if (!isObject(applied.value))
    return err("mutate-patch", `patchesJson6902 turned the resource into ${describe(applied.value)}`);
  return ok({ resource: applied.value });
}

function describe(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "a mapping" : `a ${typeof v}`;
}

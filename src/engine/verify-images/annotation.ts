/**
 * The `kyverno.io/verify-images` annotation (Kyverno `ImageVerificationMetadata`): a JSON map from
 * each verified image (as named after any digest mutation) to "pass", "fail" or "skip", written by
 * the mutate side and read by `required` on the validate side. Kyverno keeps one map per request
 * across policies; Bylaw, which mutates policy by policy, adds to the map a resource already carries.
 */
import { isObject, type JsonObject, type JsonValue, textOf } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { goJson } from "../variables/index.js";

export const VERIFY_IMAGES_ANNOTATION = "kyverno.io/verify-images";

export type ImageStatus = "pass" | "fail" | "skip";

export function annotationsOf(resource: Resource): Readonly<Record<string, JsonValue>> {
  const metadata = resource["metadata"];
  const annotations = isObject(metadata) ? metadata["annotations"] : undefined;
  return isObject(annotations) ? annotations : {};
}

/** The resource with `statuses` added to its annotation (keys sorted, as Go's encoder writes a map). */
export function withImageStatuses(resource: Resource, statuses: ReadonlyMap<string, ImageStatus>): Resource {
  const annotations = annotationsOf(resource);
  const merged: Record<string, string> = {};
  const previous = readStatuses(annotations[VERIFY_IMAGES_ANNOTATION]);
  if (previous.ok) for (const [k, v] of Object.entries(previous.value)) merged[k] = v;
  for (const [k, v] of statuses) merged[k] = v;
  const sorted: JsonObject = {};
  for (const k of Object.keys(merged).sort()) sorted[k] = merged[k] ?? "";
  const metadata = isObject(resource["metadata"]) ? resource["metadata"] : {};
  return {
    ...resource,
    metadata: { ...metadata, annotations: { ...annotations, [VERIFY_IMAGES_ANNOTATION]: goJson(sorted) } },
  };
}

/** The annotation's map, or why it cannot be read. */
export function readStatuses(
  value: JsonValue | undefined,
): { ok: true; value: Record<string, string> } | { ok: false; error: string } {
  if (typeof value !== "string") return { ok: false, error: "absent" };
  try {
    const parsed = JSON.parse(value) as JsonValue;
    if (!isObject(parsed)) return { ok: false, error: "json: cannot unmarshal into a map" };
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) {
      // Older Kyverno wrote booleans: true counts as pass.
      out[k] = v === true ? "pass" : v === false ? "fail" : textOf(v);
    }
    return { ok: true, value: out };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

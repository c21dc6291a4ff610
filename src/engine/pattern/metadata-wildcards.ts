/**
 * Wildcard keys under `metadata.labels` and `metadata.annotations` (`wildcards.ExpandInMetadata`).
 * A pattern key such as `app.kubernetes.io/*` (anchored or not) is replaced by the first real
 * resource key it matches, keeping its anchor; a key matching nothing stays as written.
 * Kyverno walks the resource keys in Go's random map order; we take them in document order.
 */
import type { JsonObject } from "../api/json.js";
import { isObject } from "../api/json.js";
import { anchorToString, parseAnchor } from "../anchors/index.js";
import { hasWildcard, wildcardMatch } from "../values/wildcard.js";
import { findTag } from "./compile.js";

/** The pattern map with wildcard metadata keys expanded against the resource, or `undefined` if unchanged. */
export function expandMetadataWildcards(pattern: JsonObject, resource: JsonObject): JsonObject | undefined {
  const metaKey = findTag(pattern, "metadata");
  const patternMeta = metaKey === undefined ? undefined : pattern[metaKey];
  const resourceMeta = resource["metadata"];
  if (metaKey === undefined || !isObject(patternMeta) || !isObject(resourceMeta)) return undefined;
  let newMeta: JsonObject | undefined;
  for (const tag of ["labels", "annotations"]) {
    const expanded = expandTag(tag, patternMeta, resourceMeta);
    if (expanded === undefined) continue;
    newMeta = { ...(newMeta ?? patternMeta), [expanded.key]: expanded.value };
  }
  return newMeta === undefined ? undefined : { ...pattern, [metaKey]: newMeta };
}

function expandTag(tag: string, patternMeta: JsonObject, resourceMeta: JsonObject): { key: string; value: JsonObject } | undefined {
  // Cheapest checks first: most patterns have no wildcard key here, and then the resource is not read.
  const patternKey = findTag(patternMeta, tag);
  const patternData = patternKey === undefined ? undefined : stringMap(patternMeta[patternKey]);
  if (patternKey === undefined || patternData === undefined || !Object.keys(patternData).some(hasWildcard)) return undefined;
  const resourceKey = findTag(resourceMeta, tag);
  const resourceData = resourceKey === undefined ? undefined : stringMap(resourceMeta[resourceKey]);
  if (resourceData === undefined) return undefined;
  const resourceKeys = Object.keys(resourceData);
  const result: JsonObject = {};
  for (const [k, v] of Object.entries(patternData)) {
    if (!hasWildcard(k)) {
      result[k] = v;
      continue;
    }
    const anchor = parseAnchor(k);
    const inner = anchor === undefined ? k : anchor.key;
    const match = resourceKeys.find((rk) => wildcardMatch(inner, rk)) ?? inner;
    result[anchor === undefined ? match : anchorToString(anchor.kind, match)] = v;
  }
  return { key: patternKey, value: result };
}

/** A map whose values are all strings (Kyverno requires this here), else `undefined`. */
function stringMap(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") return undefined;
    out[k] = v;
  }
  return out;
}

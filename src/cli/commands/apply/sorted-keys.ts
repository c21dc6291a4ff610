/** Keys in sorted order at every level, as Go's sigs.k8s.io/yaml and encoding/json of a map write them. */
import type { JsonValue } from "../../../engine/index.js";

export function sortedKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys(value[k] as JsonValue)]),
  );
}

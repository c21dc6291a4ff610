/**
 * Feeds a PolicySource into the metrics: its current set (when one has loaded, generation > 0),
 * its standing error if any, then every later load and rejection. Returns the unsubscribe function.
 */
import type { PolicySource } from "../types.js";
import type { BylawMetrics } from "./types.js";

export function bindPolicySource(metrics: BylawMetrics, source: PolicySource): () => void {
  const current = source.current();
  if (current.generation > 0) metrics.policiesLoaded(current);
  if (source.lastError() !== undefined) metrics.policyLoadFailed();
  return source.onChange((event) => {
    if (event.kind === "loaded") metrics.policiesLoaded(event.snapshot, event.previous);
    else metrics.policyLoadFailed();
  });
}

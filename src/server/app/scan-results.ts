/**
 * A background scan's rule results on /metrics: `kyverno_policy_results_total` (and the execution
 * duration) with `rule_execution_cause="background_scan"` and the operation a scan evaluates as
 * (`create`, as Kyverno's scans do), never a dry run. The scan's time is shared evenly among its
 * policies' results.
 */
import type { JsonObject, PolicyResponse } from "../../engine/index.js";
import type { BylawMetrics } from "../metrics/index.js";

export function scanResults(
  metrics: Pick<BylawMetrics, "policyResults">,
): (resource: JsonObject, responses: readonly PolicyResponse[], seconds: number) => void {
  return (resource, responses, seconds) => {
    const meta = (resource["metadata"] ?? {}) as { namespace?: unknown };
    const facts = {
      kind: typeof resource["kind"] === "string" ? resource["kind"] : "",
      namespace: typeof meta.namespace === "string" ? meta.namespace : "",
      operation: "CREATE",
      dryRun: false,
      cause: "background_scan" as const,
    };
    const results = responses.reduce((n, r) => n + r.rules.length, 0);
    const each = results > 0 && seconds > 0 ? seconds / results : 0;
    for (const response of responses)
      if (response.rules.length > 0) metrics.policyResults(facts, response, "validate", each);
  };
}

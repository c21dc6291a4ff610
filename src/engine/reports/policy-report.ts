/**
 * Build wgpolicyk8s.io/v1alpha2 PolicyReport (one per namespace) and ClusterPolicyReport (cluster-scoped
 * resources) objects from engine responses, with Kyverno's result fields and summaries (Kyverno `pkg/utils/report/*`).
 * Pure: the time the results carry is passed in (`nowMillis`), so `apply -p`, the webhook's Audit
 * results and a background scan build the same report from the same responses.
 */
import type { JsonObject } from "../api/json.js";
import { resourceNamespace } from "../api/resource.js";
import type { PolicyResponse } from "../pipeline/types.js";
import { countRows, emptySummary, reportRows, type Summary } from "./report-results.js";

export function buildPolicyReports(responses: readonly PolicyResponse[], nowMillis: number): JsonObject[] {
  const byNamespace = new Map<string, { results: JsonObject[]; summary: Summary }>();
  const seconds = Math.floor(nowMillis / 1000);
  for (const response of responses) {
    const ns = resourceNamespace(response.resource);
    const bucket = byNamespace.get(ns) ?? { results: [], summary: emptySummary() };
    const rows = reportRows(response, seconds, true);
    countRows(bucket.summary, rows);
    bucket.results.push(...rows);
    byNamespace.set(ns, bucket);
  }
  const reports: JsonObject[] = [];
  for (const [ns, { results, summary }] of [...byNamespace].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (results.length === 0) continue;
    reports.push(
      ns === ""
        ? {
            apiVersion: "wgpolicyk8s.io/v1alpha2",
            kind: "ClusterPolicyReport",
            metadata: { name: "merged", labels: { "app.kubernetes.io/managed-by": "kyverno" } },
            summary,
            results,
          }
        : {
            apiVersion: "wgpolicyk8s.io/v1alpha2",
            kind: "PolicyReport",
            metadata: { name: `merged`, namespace: ns, labels: { "app.kubernetes.io/managed-by": "kyverno" } },
            summary,
            results,
          },
    );
  }
  return reports;
}

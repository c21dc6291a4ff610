/**
 * Build wgpolicyk8s.io/v1alpha2 PolicyReport (one per namespace) and ClusterPolicyReport (cluster-scoped
 * resources) objects from engine responses, with Kyverno's result fields and summaries (spec §9).
 */
import type { JsonObject } from "../../engine/api/json.js";
import { resourceApiVersion, resourceKind, resourceName, resourceNamespace } from "../../engine/api/resource.js";
import type { PolicyResponse } from "../../engine/pipeline/types.js";
import { reportResult } from "../test-suite/compare.js";

type Summary = { pass: number; fail: number; warn: number; error: number; skip: number };

export function buildPolicyReports(responses: readonly PolicyResponse[], nowMillis: number): JsonObject[] {
  const byNamespace = new Map<string, { results: JsonObject[]; summary: Summary }>();
  const seconds = Math.floor(nowMillis / 1000);
  for (const response of responses) {
    const ns = resourceNamespace(response.resource);
    const bucket = byNamespace.get(ns) ?? { results: [], summary: { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 } };
    for (const rule of response.rules) {
      const result = reportResult(rule.status, response.policy.scored) as keyof Summary;
      bucket.summary[result]++;
      const policy = response.policy.namespace ? `${response.policy.namespace}/${response.policy.name}` : response.policy.name;
      bucket.results.push({
        source: "kyverno",
        policy,
        rule: rule.rule,
        result,
        message: rule.message,
        scored: response.policy.scored,
        ...(response.policy.severity !== undefined ? { severity: response.policy.severity } : {}),
        ...(response.policy.category !== undefined ? { category: response.policy.category } : {}),
        resources: [{
          apiVersion: resourceApiVersion(response.resource),
          kind: resourceKind(response.resource),
          name: resourceName(response.resource),
          ...(ns !== "" ? { namespace: ns } : {}),
        }],
        properties: { process: response.policy.background ? "background scan" : "admission review" },
        timestamp: { seconds, nanos: 0 },
      });
    }
    byNamespace.set(ns, bucket);
  }
  const reports: JsonObject[] = [];
  for (const [ns, { results, summary }] of [...byNamespace].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (results.length === 0) continue;
    reports.push(ns === ""
      ? { apiVersion: "wgpolicyk8s.io/v1alpha2", kind: "ClusterPolicyReport", metadata: { name: "merged", labels: { "app.kubernetes.io/managed-by": "kyverno" } }, summary, results }
      : { apiVersion: "wgpolicyk8s.io/v1alpha2", kind: "PolicyReport", metadata: { name: `merged`, namespace: ns, labels: { "app.kubernetes.io/managed-by": "kyverno" } }, summary, results });
  }
  return reports;
}

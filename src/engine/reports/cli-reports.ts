/**
 * The reports `kyverno apply -p` prints (Kyverno 1.19 `cmd/cli/kubectl-kyverno/report`): results
 * grouped by policy; every cluster-scoped policy's results merged into one openreports.io/v1alpha1
 * ClusterReport named `merged`, then one openreports.io/v1alpha1 report per namespaced policy (named
 * and namespaced as its policy; Kyverno's CLI sets its kind to `PolicyReport`). Responses with no
 * rule result add nothing; with no result at all there is no report. Pure, as buildPolicyReports.
 */
import type { JsonObject } from "../api/json.js";
import type { PolicyResponse } from "../pipeline/types.js";
import { countRows, emptySummary, reportNamespace, reportRows } from "./report-results.js";

const API_VERSION = "openreports.io/v1alpha1";

export function buildCliReports(responses: readonly PolicyResponse[], nowMillis: number): JsonObject[] {
  const seconds = Math.floor(nowMillis / 1000);
  const clustered: JsonObject[] = [];
  const namespaced = new Map<string, { name: string; namespace: string; results: JsonObject[] }>();
  for (const response of responses) {
    if (response.rules.length === 0) continue;
    const rows = reportRows(response, seconds, true);
    const name = response.policy.name;
    const namespace = reportNamespace(response.policy);
    if (!namespace) {
      clustered.push(...rows);
      continue;
    }
    const key = `${namespace}/${name}`;
    const entry = namespaced.get(key) ?? { name, namespace, results: [] };
    entry.results.push(...rows);
    namespaced.set(key, entry);
  }
  const reports: JsonObject[] = [];
  if (clustered.length > 0) reports.push(report("ClusterReport", { name: "merged" }, clustered));
  for (const { name, namespace, results } of namespaced.values())
    reports.push(report("PolicyReport", { name, namespace }, results));
  return reports;
}

function report(kind: string, metadata: { name: string; namespace?: string }, results: JsonObject[]): JsonObject {
  const summary = emptySummary();
  countRows(summary, results);
  // As Kyverno 1.19's CLI prints it: no creationTimestamp, and the report's own `source` empty.
  return { apiVersion: API_VERSION, kind, metadata, source: "", results, summary };
}

/**
 * PolicyReports and ClusterPolicyReports (wgpolicyk8s.io/v1alpha2, from Bylaw, Kyverno or any
 * producer; openreports.io Reports have the same shape) as Policy Reporter's series:
 * `policy_report_result` (one series per result, value the number of results with those labels),
 * `policy_report_summary{namespace,name,status}` from the report's summary, and the same two
 * prefixed `cluster_` for cluster-scoped reports (without `namespace`). The resource of a result
 * is its first `resources[]` entry, else the report's `scope`.
 */
import { isObject, type JsonObject, type JsonValue } from "../../engine/index.js";
import type { SeriesTable } from "./series-table.js";
import type { ReportLabel } from "./types.js";

/** Policy Reporter's summary statuses, in the order it writes them. */
const SUMMARY_STATUSES = ["pass", "fail", "warn", "error", "skip"] as const;

function text(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : "";
}

function field(o: JsonValue | undefined, key: string): JsonValue | undefined {
  return isObject(o) ? o[key] : undefined;
}

/** The resource a result is about: its first `resources[]` entry, else the report's scope. */
function resourceOf(result: JsonObject, report: JsonObject): JsonValue | undefined {
  const resources = result["resources"];
  if (Array.isArray(resources) && resources.length > 0) return resources[0];
  return report["scope"];
}

/** The label values of one result, for the labels chosen (`namespace` dropped for a cluster report). */
function resultLabels(result: JsonObject, report: JsonObject, labels: readonly ReportLabel[]): Record<string, string> {
  const resource = resourceOf(result, report);
  const all: Record<ReportLabel, string> = {
    namespace: text(field(report["metadata"], "namespace")),
    rule: text(result["rule"]),
    policy: text(result["policy"]),
    report: text(field(report["metadata"], "name")),
    kind: text(field(resource, "kind")),
    name: text(field(resource, "name")),
    status: text(result["result"]),
    severity: text(result["severity"]),
    category: text(result["category"]),
    source: text(result["source"]),
  };
  const out: Record<string, string> = {};
  for (const l of labels) out[l] = all[l];
  return out;
}

/** Adds one report's results to `results` and its summary to `summary`. */
export function addReport(
  report: JsonObject,
  tables: { readonly results: SeriesTable; readonly summary: SeriesTable },
  o: { readonly labels: readonly ReportLabel[]; readonly cluster: boolean },
): void {
  const labels = o.cluster ? o.labels.filter((l) => l !== "namespace") : o.labels;
  const results = report["results"];
  if (Array.isArray(results))
    for (const r of results) if (isObject(r)) tables.results.add(resultLabels(r, report, labels), 1);
  const summary = report["summary"];
  const name = text(field(report["metadata"], "name"));
  const namespace = text(field(report["metadata"], "namespace"));
  for (const status of SUMMARY_STATUSES) {
    const count = field(summary, status);
    const label = status.charAt(0).toUpperCase() + status.slice(1);
    tables.summary.add(
      o.cluster ? { name, status: label } : { namespace, name, status: label },
      typeof count === "number" ? count : 0,
    );
  }
}

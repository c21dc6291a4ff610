/**
 * The report of one resource, in Kyverno 1.19's layout (`docs/dev/reports`, `pkg/utils/report`):
 * a wgpolicyk8s.io/v1alpha2 PolicyReport in the resource's namespace (a ClusterPolicyReport for a
 * cluster-scoped resource), named by the resource's uid, owned by it (so it goes when the resource
 * goes), labelled `app.kubernetes.io/managed-by: kyverno` (what Kyverno's tooling selects on) and
 * {@link BYLAW_REPORT_LABEL} (what Bylaw wrote, and so may delete), with the resource as its
 * `scope`, one row per rule result and a summary. Pure: the time the rows carry is passed in.
 */
import { textOf, type JsonObject } from "../api/json.js";
import {
  resourceApiVersion,
  resourceKind,
  resourceMetadata,
  resourceName,
  resourceNamespace,
} from "../api/resource.js";
import type { PolicyResponse } from "../pipeline/types.js";
import { countRows, emptySummary, reportRows } from "./report-results.js";

/**
 * The label that marks a report Bylaw wrote: Bylaw's orphan sweep deletes only reports that carry it,
 * never Kyverno's own (both label `app.kubernetes.io/managed-by: kyverno`).
 */
export const BYLAW_REPORT_LABEL = { key: "reports.bylaw.dev/managed-by", value: "bylaw" } as const;

/**
 * The report for `resource` from the responses of the policies that matched it, plus the `kept`
 * rows (e.g. admission results already in the report) of rules the responses do not cover;
 * undefined when no row remains.
 */
export function buildResourceReport(
  resource: JsonObject,
  responses: readonly PolicyResponse[],
  nowMillis: number,
  kept: readonly JsonObject[] = [],
): JsonObject | undefined {
  const seconds = Math.floor(nowMillis / 1000);
  const fresh: JsonObject[] = [];
  for (const response of responses) for (const row of reportRows(response, seconds, false)) fresh.push(row);
  // A scan's report keeps no row (most reports): no key is made.
  const results = kept.length === 0 ? fresh : [...fresh, ...notCoveredBy(fresh, kept)];
  results.sort(byPolicyRuleSource);
  if (results.length === 0) return undefined;
  const summary = emptySummary();
  countRows(summary, results);
  const rawUid = resourceMetadata(resource)["uid"];
  const uid = typeof rawUid === "string" ? rawUid : "";
  const ns = resourceNamespace(resource);
  const ref = { apiVersion: resourceApiVersion(resource), kind: resourceKind(resource), name: resourceName(resource) };
  return {
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: ns === "" ? "ClusterPolicyReport" : "PolicyReport",
    metadata: {
      name: uid,
      ...(ns !== "" ? { namespace: ns } : {}),
      labels: { "app.kubernetes.io/managed-by": "kyverno", [BYLAW_REPORT_LABEL.key]: BYLAW_REPORT_LABEL.value },
      ownerReferences: [{ ...ref, uid }],
    },
    scope: { ...ref, ...(ns !== "" ? { namespace: ns } : {}), uid },
    summary,
    results,
  };
}

/**
 * Where a per-resource report is written: `wgpolicyk8s` (PolicyReport and ClusterPolicyReport in
 * wgpolicyk8s.io/v1alpha2, the default) or `openreports` (Report and ClusterReport in
 * openreports.io/v1alpha1, Kyverno's `--openreportsEnabled`): the same fields either way.
 */
export type ReportFormat = "wgpolicyk8s" | "openreports";

/** The kind of a resource's report in `format`: cluster-scoped resources get the cluster kind. */
export function reportKind(format: ReportFormat, clusterScoped: boolean): string {
  if (format === "openreports") return clusterScoped ? "ClusterReport" : "Report";
  return clusterScoped ? "ClusterPolicyReport" : "PolicyReport";
}

/** A report built by {@link buildResourceReport}, in `format`. */
export function inReportFormat(report: JsonObject, format: ReportFormat): JsonObject {
  if (format === "wgpolicyk8s") return report;
  return {
    ...report,
    apiVersion: "openreports.io/v1alpha1",
    kind: reportKind(format, report["kind"] === "ClusterPolicyReport"),
  };
}

/**
 * Kyverno's order of a report's rows (`SortReportResults`): by policy, then rule, then source, each
 * compared as Go compares strings (by code unit here; the same for the ASCII names Kubernetes allows),
 * not by locale: `disallow-capabilities` comes before `disallow-capabilities-strict`.
 */
function byPolicyRuleSource(a: JsonObject, b: JsonObject): number {
  // An absent rule (a CEL policy's row) is Go's empty string.
  return byText(a["policy"], b["policy"]) || byText(a["rule"], b["rule"]) || byText(a["source"], b["source"]);
}

function byText(a: unknown, b: unknown): number {
  const x = typeof a === "string" ? a : "";
  const y = typeof b === "string" ? b : "";
  return x === y ? 0 : x < y ? -1 : 1;
}

/** The `kept` rows of rules no `fresh` row has. */
function notCoveredBy(fresh: readonly JsonObject[], kept: readonly JsonObject[]): JsonObject[] {
  const covered = new Set(fresh.map(rowKey));
  return kept.filter((row) => !covered.has(rowKey(row)));
}

/** A row's identity in a per-resource report: its policy and rule. */
function rowKey(row: JsonObject): string {
  return `${textOf(row["policy"])}\u0000${textOf(row["rule"])}`;
}

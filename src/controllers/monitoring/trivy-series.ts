/**
 * trivy-operator's reports (aquasecurity.github.io/v1alpha1) as counts by severity, with
 * trivy-operator's own metric names: `trivy_image_vulnerabilities` from VulnerabilityReports and
 * ClusterVulnerabilityReports, `trivy_resource_configaudits` from ConfigAuditReports and
 * ClusterConfigAuditReports; labels `namespace` ("" for the cluster kinds), `resource_kind`,
 * `resource_name` (the `trivy-operator.resource.*` labels the operator sets), `container_name`
 * (vulnerabilities only) and `severity` (Critical, High, Medium, Low, Unknown), from the report's
 * `summary`.
 */
import { isObject, type JsonObject, type JsonValue } from "../../engine/index.js";
import type { SeriesTable } from "./series-table.js";

const SEVERITIES = [
  ["critical", "Critical"],
  ["high", "High"],
  ["medium", "Medium"],
  ["low", "Low"],
  ["unknown", "Unknown"],
] as const;

function labelOf(report: JsonObject, key: string): string {
  const labels = isObject(report["metadata"]) ? report["metadata"]["labels"] : undefined;
  const value = isObject(labels) ? labels[key] : undefined;
  return typeof value === "string" ? value : "";
}

function summaryOf(report: JsonObject): JsonValue | undefined {
  return isObject(report["report"]) ? report["report"]["summary"] : undefined;
}

/** Adds one trivy report's severity counts to `table`; `container` adds `container_name` (vulnerabilities). */
export function addTrivyReport(report: JsonObject, table: SeriesTable, o: { readonly container: boolean }): void {
  const summary = summaryOf(report);
  const metadata = isObject(report["metadata"]) ? report["metadata"] : {};
  const base: Record<string, string> = {
    namespace: typeof metadata["namespace"] === "string" ? metadata["namespace"] : "",
    resource_kind: labelOf(report, "trivy-operator.resource.kind"),
    resource_name: labelOf(report, "trivy-operator.resource.name"),
    ...(o.container ? { container_name: labelOf(report, "trivy-operator.container.name") } : {}),
  };
  for (const [key, severity] of SEVERITIES) {
    const count = isObject(summary) ? summary[`${key}Count`] : undefined;
    table.add({ ...base, severity }, typeof count === "number" ? count : 0);
  }
}

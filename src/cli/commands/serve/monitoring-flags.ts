/**
 * The monitoring component's flags: `--monitoring-labels` (the labels of policy_report_result:
 * `detailed`, `simple`, or a comma-separated list of namespace, rule, policy, report, kind, name,
 * status, severity, category, source, as Policy Reporter's metrics.mode / customLabels) and
 * `--monitoring-max-series` (label sets per family; past it series are dropped and counted).
 */
import {
  REPORT_LABELS,
  SIMPLE_REPORT_LABELS,
  isReportLabel,
  type ReportLabel,
} from "../../../controllers/monitoring/index.js";

export const MONITORING_FLAG_OPTIONS = {
  "monitoring-labels": { type: "string", default: "detailed" },
  "monitoring-max-series": { type: "string", default: "10000" },
} as const;

interface MonitoringSettings {
  readonly labels: readonly ReportLabel[];
  readonly maxSeries: number;
}

function labelsFrom(text: string): { ok: true; value: readonly ReportLabel[] } | { ok: false; error: string } {
  if (text === "detailed") return { ok: true, value: REPORT_LABELS };
  if (text === "simple") return { ok: true, value: SIMPLE_REPORT_LABELS };
  const names = text.split(",").map((s) => s.trim());
  const bad = names.find((n) => !isReportLabel(n));
  if (bad !== undefined)
    return {
      ok: false,
      error: `--monitoring-labels must be detailed, simple or a comma-separated list of ${REPORT_LABELS.join(", ")} (got ${JSON.stringify(bad)})`,
    };
  return { ok: true, value: [...new Set(names)] as ReportLabel[] };
}

export function monitoringSettings(values: {
  readonly "monitoring-labels"?: string | undefined;
  readonly "monitoring-max-series"?: string | undefined;
}): { ok: true; value: MonitoringSettings } | { ok: false; error: string } {
  const labels = labelsFrom(values["monitoring-labels"] ?? "detailed");
  if (!labels.ok) return labels;
  const text = values["monitoring-max-series"] ?? "10000";
  const maxSeries = Number(text);
  if (!Number.isInteger(maxSeries) || maxSeries < 1)
    return {
      ok: false,
      error: `--monitoring-max-series must be a positive whole number (got ${JSON.stringify(text)})`,
    };
  return { ok: true, value: { labels: labels.value, maxSeries } };
}

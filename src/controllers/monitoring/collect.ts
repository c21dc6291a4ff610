/**
 * From the report objects the informers hold, the families the monitoring component serves (pure:
 * objects in, series out). Each family holds at most `maxSeries` label sets; what did not fit is
 * reported in `bylaw_monitoring_series_dropped{metric}`. A kind that cannot be read (its CRD is not
 * installed, or Bylaw may not list it) is `bylaw_monitoring_source_up{resource} 0`, never an empty
 * answer that looks like "no violations".
 */
import type { JsonObject } from "../../engine/index.js";
import { addReport } from "./report-series.js";
import { SeriesTable } from "./series-table.js";
import { sourceName, type MonitoredSource } from "./sources.js";
import { addTrivyReport } from "./trivy-series.js";
import type { Family, ReportLabel } from "./types.js";

interface CollectInput {
  /** Each source with its objects, or undefined when it cannot be read now. */
  readonly sources: readonly {
    readonly source: MonitoredSource;
    readonly objects: readonly JsonObject[] | undefined;
  }[];
  /** The labels of `policy_report_result` (the operator's choice). */
  readonly labels: readonly ReportLabel[];
  readonly maxSeries: number;
}

const TRIVY_VULN = ["namespace", "resource_kind", "resource_name", "container_name", "severity"];
const TRIVY_AUDIT = ["namespace", "resource_kind", "resource_name", "severity"];

interface Tables {
  readonly results: SeriesTable;
  readonly summary: SeriesTable;
  readonly clusterResults: SeriesTable;
  readonly clusterSummary: SeriesTable;
  readonly vulnerabilities: SeriesTable;
  readonly audits: SeriesTable;
}

function fill(input: CollectInput): Tables {
  const t: Tables = {
    results: new SeriesTable(input.maxSeries),
    summary: new SeriesTable(input.maxSeries),
    clusterResults: new SeriesTable(input.maxSeries),
    clusterSummary: new SeriesTable(input.maxSeries),
    vulnerabilities: new SeriesTable(input.maxSeries),
    audits: new SeriesTable(input.maxSeries),
  };
  for (const { source, objects } of input.sources)
    for (const o of objects ?? []) {
      if (source.family === "policy-report")
        addReport(o, { results: t.results, summary: t.summary }, { labels: input.labels, cluster: false });
      else if (source.family === "cluster-policy-report")
        addReport(o, { results: t.clusterResults, summary: t.clusterSummary }, { labels: input.labels, cluster: true });
      else if (source.family === "trivy-vulnerabilities") addTrivyReport(o, t.vulnerabilities, { container: true });
      else addTrivyReport(o, t.audits, { container: false });
    }
  return t;
}

export function collectFamilies(input: CollectInput): Family[] {
  const t = fill(input);
  const clusterLabels = input.labels.filter((l) => l !== "namespace");
  const families: [Family, SeriesTable][] = [
    [fam("policy_report_result", "List of all PolicyReport Results", input.labels, t.results), t.results],
    [
      fam("policy_report_summary", "Summary of all PolicyReports", ["namespace", "name", "status"], t.summary),
      t.summary,
    ],
    [
      fam("cluster_policy_report_result", "List of all ClusterPolicyReport Results", clusterLabels, t.clusterResults),
      t.clusterResults,
    ],
    [
      fam("cluster_policy_report_summary", "Summary of all ClusterPolicyReports", ["name", "status"], t.clusterSummary),
      t.clusterSummary,
    ],
    [
      fam("trivy_image_vulnerabilities", "Number of container image vulnerabilities", TRIVY_VULN, t.vulnerabilities),
      t.vulnerabilities,
    ],
    [
      fam(
        "trivy_resource_configaudits",
        "Number of failing resource configuration auditing checks",
        TRIVY_AUDIT,
        t.audits,
      ),
      t.audits,
    ],
  ];
  return [
    ...families.map(([f]) => f),
    {
      name: "bylaw_monitoring_series_dropped",
      help: "Series of a family left out of /metrics because it holds its --monitoring-max-series label sets",
      labelNames: ["metric"],
      samples: families.map(([f, table]) => ({ labels: { metric: f.name }, value: table.dropped })),
    },
    {
      name: "bylaw_monitoring_source_up",
      help: "Whether the monitoring component reads this kind of report (0: its CRD is missing or Bylaw may not list it)",
      labelNames: ["resource"],
      samples: input.sources.map(({ source, objects }) => ({
        labels: { resource: sourceName(source.gvr) },
        value: objects === undefined ? 0 : 1,
      })),
    },
  ];
}

function fam(name: string, help: string, labelNames: readonly string[], table: SeriesTable): Family {
  return { name, help, labelNames, samples: table.samples() };
}

/** Shapes of the monitoring component (ADR 0019): the series it serves on /metrics. */

/** One series: its label values (in the family's label order) and its value. */
export interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A metric family as served: name, help, label names and its samples. */
export interface Family {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly samples: readonly Sample[];
}

/** The labels `policy_report_result` may carry (Policy Reporter's "detailed" set); the operator picks among them. */
export const REPORT_LABELS = [
  "namespace",
  "rule",
  "policy",
  "report",
  "kind",
  "name",
  "status",
  "severity",
  "category",
  "source",
] as const;

export type ReportLabel = (typeof REPORT_LABELS)[number];

/** Policy Reporter's "simple" set: no per-resource or per-rule label. */
export const SIMPLE_REPORT_LABELS: readonly ReportLabel[] = [
  "namespace",
  "policy",
  "status",
  "severity",
  "category",
  "source",
];

export function isReportLabel(name: string): name is ReportLabel {
  return (REPORT_LABELS as readonly string[]).includes(name);
}

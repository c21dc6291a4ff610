/** Shapes of the monitoring component (ADR 0019): the series it serves on /metrics, and where it sends to Loki. */
import type { LokiConnection, LokiEncoding } from "../../platform/loki/index.js";
import type { EventsToLoki } from "./event-sender.js";
import type { ResultFilter } from "./result-filter.js";

/** `--loki` and the flags around it: where results (and Events, with `events`) go. */
export interface MonitoringLokiSettings {
  readonly connection: LokiConnection;
  readonly encoding: LokiEncoding;
  /** `--loki-label NAME=VALUE`: added to every stream. */
  readonly extraLabels: Readonly<Record<string, string>>;
  /** `--loki-minimum-severity`, `--loki-sources`, `--loki-filter`: which results are sent. */
  readonly resultFilter?: ResultFilter;
  readonly events?: EventsToLoki;
}

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

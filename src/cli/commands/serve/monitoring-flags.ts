/**
 * The monitoring component's flags: `--monitoring-labels` (the labels of policy_report_result:
 * `detailed`, `simple`, or a comma-separated list of namespace, rule, policy, report, kind, name,
 * status, severity, category, source, as Policy Reporter's metrics.mode / customLabels) and
 * `--monitoring-max-series` (label sets per family; past it series are dropped and counted); and
 * where it sends results and Events to Loki: the --loki-* flags of `bylaw kube-bench` (one parser,
 * ../../loki-flags.ts), `--loki-events` and its filters `--loki-event-match` / `--loki-event-drop`
 * (FIELD=REGEX, as kubernetes-event-exporter's route rules).
 */
import {
  REPORT_LABELS,
  SIMPLE_REPORT_LABELS,
  isReportLabel,
  type ReportLabel,
  eventCondition,
  type MonitoringLokiSettings,
} from "../../../controllers/monitoring/index.js";
import { LOKI_FLAG_OPTIONS, lokiConnection, lokiLabels, type LokiFlags } from "../../loki-flags.js";
import { LOKI_FILTER_FLAG_OPTIONS, lokiResultFilter, type LokiFilterFlags } from "./loki-filter-flags.js";

export const MONITORING_FLAG_OPTIONS = {
  "monitoring-labels": { type: "string", default: "detailed" },
  "monitoring-max-series": { type: "string", default: "10000" },
  ...LOKI_FLAG_OPTIONS,
  ...LOKI_FILTER_FLAG_OPTIONS,
  "loki-events": { type: "boolean", default: false },
  "loki-event-match": { type: "string", multiple: true },
  "loki-event-drop": { type: "string", multiple: true },
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

/** How long one push to Loki may take before it is retried. */
const LOKI_PUSH_TIMEOUT_MS = 10_000;

interface MonitoringLokiFlags extends LokiFlags, LokiFilterFlags {
  readonly "loki-events"?: boolean | undefined;
  readonly "loki-event-match"?: string[] | undefined;
  readonly "loki-event-drop"?: string[] | undefined;
}

function conditions(flag: string, specs: readonly string[]) {
  const out = [];
  for (const spec of specs) {
    const c = eventCondition(flag, spec);
    if (typeof c === "string") return c;
    out.push(c);
  }
  return out;
}

/** Where the monitoring component sends to Loki (undefined: no --loki), or what is wrong with the flags. */
export async function monitoringLoki(
  values: MonitoringLokiFlags,
  components: readonly string[],
): Promise<{ ok: true; value: MonitoringLokiSettings | undefined } | { ok: false; error: string }> {
  const eventFlags = values["loki-events"] === true || values["loki-event-match"] || values["loki-event-drop"];
  const filterFlags = values["loki-minimum-severity"] ?? values["loki-sources"] ?? values["loki-filter"];
  if (values.loki === undefined)
    return eventFlags || filterFlags !== undefined
      ? {
          ok: false,
          error:
            "--loki-events, --loki-minimum-severity, --loki-sources, --loki-filter and --loki-event-* need --loki URL",
        }
      : { ok: true, value: undefined };
  if (!components.includes("monitoring"))
    return { ok: false, error: "--loki sends the monitoring component's results: give --component monitoring too" };
  if (!values["loki-events"] && (values["loki-event-match"] || values["loki-event-drop"]))
    return { ok: false, error: "--loki-event-match and --loki-event-drop filter --loki-events: give it too" };
  const connection = await lokiConnection(values, LOKI_PUSH_TIMEOUT_MS);
  if (typeof connection === "string") return { ok: false, error: connection };
  const extraLabels = lokiLabels(values["loki-label"] ?? []);
  if (typeof extraLabels === "string") return { ok: false, error: extraLabels };
  const match = conditions("--loki-event-match", values["loki-event-match"] ?? []);
  if (typeof match === "string") return { ok: false, error: match };
  const drop = conditions("--loki-event-drop", values["loki-event-drop"] ?? []);
  if (typeof drop === "string") return { ok: false, error: drop };
  const resultFilter = lokiResultFilter(values);
  if (!resultFilter.ok) return resultFilter;
  return {
    ok: true,
    value: {
      connection,
      encoding: values["loki-encoding"] === "json" ? "json" : "protobuf",
      extraLabels,
      ...(resultFilter.value !== undefined ? { resultFilter: resultFilter.value } : {}),
      ...(values["loki-events"] === true
        ? { events: { filter: { match, drop }, labels: { job: "kubernetes-event", ...extraLabels } } }
        : {}),
    },
  };
}

/**
 * `startMonitoring`: the monitoring component's loop (ADR 0019). One informer per report kind
 * (sources.ts) lists and watches every producer's reports; on a scrape the families are built from
 * what the informers hold (collect.ts), again only after something changed. With a Loki client,
 * each new result goes to Loki once (result-sender.ts) and, when asked, each new Event
 * (event-sender.ts). It writes nothing to the cluster and needs no leader.
 */
import type { JsonObject } from "../../engine/index.js";
import type { LokiEntry } from "../../platform/loki/index.js";
import { Informer } from "../../kube/informer.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { collectFamilies } from "./collect.js";
import { startEventSender, type EventsToLoki } from "./event-sender.js";
import type { ResultFilter } from "./result-filter.js";
import { ResultSender } from "./result-sender.js";
import { MONITORED_SOURCES, sourceName } from "./sources.js";
import type { Family, ReportLabel } from "./types.js";

/** Where results (and Events, when `events` is set) go: a Loki client's push, and the labels added to every stream. */
interface MonitoringLoki {
  readonly push: (labels: Readonly<Record<string, string>>, entry: LokiEntry) => void;
  readonly extraLabels: Readonly<Record<string, string>>;
  /** Which results are sent (Policy Reporter's target filters); none: every new result. */
  readonly resultFilter?: ResultFilter;
  readonly events?: EventsToLoki;
}

interface MonitoringOptions {
  readonly client: KubeClient;
  readonly labels: readonly ReportLabel[];
  readonly maxSeries: number;
  /** Bytes of report JSON each kind's cache may hold. */
  readonly budgetBytes?: number;
  readonly loki?: MonitoringLoki;
  readonly onLog: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;
}

interface Monitoring {
  /** The families as of now (rebuilt only when a report changed since the last call). */
  families(): readonly Family[];
  close(): void;
}

export function startMonitoring(o: MonitoringOptions): Monitoring {
  const random = { next: () => Math.random() };
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());
  let changed = true;
  const loki = o.loki;
  const sender =
    loki !== undefined
      ? new ResultSender({ push: loki.push, extraLabels: loki.extraLabels, now: Date.now, filter: loki.resultFilter })
      : undefined;
  const informers = MONITORED_SOURCES.map((source) => {
    const informer: Informer = new Informer({
      client: o.client,
      gvr: source.gvr,
      budgetBytes: o.budgetBytes ?? 128 * 1024 * 1024,
      random,
      sleep,
      onEvent: (event, object) => {
        changed = true;
        if (event === "deleted") sender?.deleted(source, object);
        else sender?.changed(source, object);
      },
      onListed: () => {
        changed = true;
        sender?.listed(source, informer.list());
      },
      onLog: (level, message, fields) =>
        o.onLog(level, `monitoring: ${message}`, { resource: sourceName(source.gvr), ...fields }),
    });
    informer.start();
    return { source, informer };
  });
  const events =
    loki?.events !== undefined
      ? startEventSender({ client: o.client, push: loki.push, events: loki.events, onLog: o.onLog })
      : undefined;
  let cached: readonly Family[] = [];
  let lastUp = "";
  o.onLog("info", "monitoring: reading reports", { resources: MONITORED_SOURCES.map((s) => sourceName(s.gvr)) });
  return {
    families: () => {
      const up = informers.map(({ informer }) => (informer.health().ok ? "1" : "0")).join("");
      if (!changed && up === lastUp) return cached;
      changed = false;
      lastUp = up;
      cached = collectFamilies({
        sources: informers.map(({ source, informer }) => ({
          source,
          objects: informer.health().ok ? (informer.list() as JsonObject[]) : undefined,
        })),
        labels: o.labels,
        maxSeries: o.maxSeries,
      });
      return cached;
    },
    close: () => {
      for (const { informer } of informers) informer.stop();
      events?.stop();
    },
  };
}

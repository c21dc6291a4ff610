/**
 * `startMonitoring`: the monitoring component's loop (ADR 0019). One informer per report kind
 * (sources.ts) lists and watches every producer's reports; on a scrape the families are built from
 * what the informers hold (collect.ts), again only after something changed. It writes nothing and
 * needs no leader: every replica serves the same series.
 */
import type { JsonObject } from "../../engine/index.js";
import { Informer } from "../../kube/informer.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { collectFamilies } from "./collect.js";
import { MONITORED_SOURCES, sourceName } from "./sources.js";
import type { Family, ReportLabel } from "./types.js";

interface MonitoringOptions {
  readonly client: KubeClient;
  readonly labels: readonly ReportLabel[];
  readonly maxSeries: number;
  /** Bytes of report JSON each kind's cache may hold. */
  readonly budgetBytes?: number;
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
  const informers = MONITORED_SOURCES.map((source) => {
    const informer = new Informer({
      client: o.client,
      gvr: source.gvr,
      budgetBytes: o.budgetBytes ?? 128 * 1024 * 1024,
      random,
      sleep,
      onEvent: () => (changed = true),
      onListed: () => (changed = true),
      onLog: (level, message, fields) =>
        o.onLog(level, `monitoring: ${message}`, { resource: sourceName(source.gvr), ...fields }),
    });
    informer.start();
    return { source, informer };
  });
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
    },
  };
}

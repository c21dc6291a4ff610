/**
 * The monitoring component's Loki client (ADR 0019), from `--loki` and the flags around it: one
 * batching, retrying client whose sent and dropped counters are on /metrics
 * (`bylaw_loki_entries_sent_total`, `bylaw_loki_entries_dropped_total{reason}`), whose problems are
 * logged, and which is flushed for a few seconds at shutdown.
 */
import type { Registry } from "prom-client";
import type { MonitoringLokiSettings } from "../../controllers/monitoring/index.js";
import { LokiClient } from "../../platform/loki/index.js";
import type { Logger } from "../logging/index.js";

/** How long the last results may take to reach Loki at shutdown. */
const FLUSH_AT_CLOSE_MS = 3000;

export function monitoringLoki(settings: MonitoringLokiSettings, registry: Registry, logger: Logger) {
  const client = new LokiClient({
    connection: settings.connection,
    encoding: settings.encoding,
    registry,
    onProblem: (message) => logger.warn({ loki: settings.connection.url }, `bylaw serve: monitoring: Loki: ${message}`),
  });
  logger.info(
    { loki: settings.connection.url, events: settings.events !== undefined },
    "bylaw serve: monitoring: sending new results to Loki",
  );
  return {
    loki: {
      push: (labels: Readonly<Record<string, string>>, entry: Parameters<LokiClient["push"]>[1]) =>
        void client.push(labels, entry),
      extraLabels: settings.extraLabels,
      ...(settings.resultFilter !== undefined ? { resultFilter: settings.resultFilter } : {}),
      ...(settings.events !== undefined ? { events: settings.events } : {}),
    },
    close: () => void client.close(FLUSH_AT_CLOSE_MS),
  };
}

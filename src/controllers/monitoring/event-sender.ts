/**
 * Kubernetes Events to Loki, as kubernetes-event-exporter sends them: an informer on core v1 Events
 * (every namespace), and each Event created after the first list that passes the filter is pushed
 * once (event-lines.ts). Events already there at start, and updates of an Event (its count going
 * up), are not sent, as event-exporter skips them by default (`sentUpdateEvent: false`).
 */
import type { JsonObject } from "../../engine/index.js";
import { Informer } from "../../kube/informer.js";
import type { KubeClient } from "../../kube/kube-client.js";
import type { LokiEntry } from "../../platform/loki/index.js";
import { eventEntry, eventPasses, type EventFilter } from "./event-lines.js";

/** Which Events go to Loki, and their stream labels (`job="kubernetes-event"` and the operator's). */
export interface EventsToLoki {
  readonly filter: EventFilter;
  readonly labels: Readonly<Record<string, string>>;
}

interface EventSenderOptions {
  readonly client: KubeClient;
  readonly push: (labels: Readonly<Record<string, string>>, entry: LokiEntry) => void;
  readonly events: EventsToLoki;
  readonly onLog: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;
}

export function startEventSender(o: EventSenderOptions): { stop(): void } {
  let listed = false;
  const informer = new Informer({
    client: o.client,
    gvr: { group: "", version: "v1", resource: "events" },
    budgetBytes: 64 * 1024 * 1024,
    random: { next: () => Math.random() },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
    onListed: () => (listed = true),
    onEvent: (kind, object) => {
      if (!listed || kind !== "added") return;
      const event = object as JsonObject;
      if (eventPasses(event, o.events.filter)) o.push(o.events.labels, eventEntry(event, Date.now()));
    },
    onLog: (level, message, fields) =>
      o.onLog(level, `monitoring: Events to Loki: ${message}`, { resource: "events", ...fields }),
  });
  informer.start();
  return { stop: () => informer.stop() };
}

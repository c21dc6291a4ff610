/**
 * The process's one Events emitter (src/controllers/events), with policies or context from the
 * cluster: bounded by `--max-queued-events`, its drops counted in `kyverno_events_dropped_total`, a
 * refused Event logged at most once a minute. It gives the admission handlers their `onReviewed`
 * (kyverno-admission Events) and the controllers their sink and component names.
 */
import { Counter, type Registry } from "prom-client";
import {
  backgroundAppliedEvents,
  eventComponents,
  EventSeries,
  EventsEmitter,
  policyResultEvents,
  scanResultEvents,
  type EventComponents,
  type EventOrigin,
  type ObjectRef,
} from "../../controllers/events/index.js";
import type { CompiledPolicy, JsonObject, PolicyResponse } from "../../engine/index.js";
import { createEvent, patchEventSeries } from "../../kube/cleanup-calls.js";
import type { KubeClient } from "../../kube/kube-client.js";
import type { ReviewedRequest } from "../admission/deps.js";
import type { Logger } from "../logging/index.js";

/** `--event-component-prefix`, `--max-queued-events`, `--omit-events`. */
export interface EventSettings {
  readonly componentPrefix: string;
  readonly maxQueued: number;
  readonly omit: readonly string[];
}

export interface ProcessEvents {
  readonly emitter: EventsEmitter;
  /** Stops taking Events and the series' sweeps. */
  close(): void;
  readonly components: EventComponents;
  /** Who reports now, as `controller`. */
  origin(controller: string): EventOrigin;
  readonly onReviewed: (reviewed: ReviewedRequest) => void;
  /** What a generate request made, as kyverno-generate's PolicyApplied Events on its policy. */
  generated(policy: CompiledPolicy | undefined, targets: readonly ObjectRef[]): void;
  /** A background scan's results for a resource, as kyverno-scan's Events. */
  scanned(resource: JsonObject, responses: readonly PolicyResponse[]): void;
}

export function setUpEvents(o: {
  readonly client: KubeClient;
  readonly settings: EventSettings;
  readonly registry: Registry;
  readonly logger: Logger;
}): ProcessEvents {
  const dropped = new Counter({
    name: "kyverno_events_dropped_total",
    help: "can be used to track the number of events dropped because the event queue was full.",
    registers: [o.registry],
  });
  let lastWarn = 0;
  const onError = (error: unknown): void => {
    const now = Date.now();
    if (now - lastWarn < 60_000) return;
    lastWarn = now;
    o.logger.warn({ error: String(error) }, "bylaw serve: the API server did not take an Event");
  };
  const { series, sweeps } = seriesOf(o.client, onError);
  const emitter = new EventsEmitter({
    post: (event) => series.record(event),
    maxQueued: o.settings.maxQueued,
    onDrop: () => dropped.inc(),
    onError,
  });
  const omit = new Set(o.settings.omit);
  const instance = process.env["POD_NAME"] ?? "bylaw";
  const components = eventComponents(o.settings.componentPrefix);
  const origin = (controller: string): EventOrigin => ({ controller, instance, now: Date.now(), omit });
  return {
    emitter,
    close: () => {
      clearInterval(sweeps);
      emitter.close();
      series.clear();
    },
    components,
    origin,
    generated: (policy, targets) => {
      if (policy === undefined) return;
      const from = origin(components.generate);
      for (const e of backgroundAppliedEvents({ policy, targets, mutated: false, origin: from })) emitter.emit(e);
    },
    scanned: (resource, responses) => {
      const from = origin(components.scan);
      // Drafts: those the full queue drops are never built.
      for (const draft of scanResultEvents({ resource, responses, origin: from })) emitter.emit(draft);
    },
    onReviewed: (reviewed) => {
      const { object, responses, blocked } = reviewed;
      const from = origin(components.admission);
      for (const draft of policyResultEvents({ resource: object, responses, blocked, origin: from }))
        emitter.emit(draft);
    },
  };
}

/** Isomorphic Events become one Event with a count, as client-go's recorder makes them for Kyverno; swept every minute. */
function seriesOf(
  client: KubeClient,
  onError: (e: unknown) => void,
): { readonly series: EventSeries; readonly sweeps: NodeJS.Timeout } {
  const series = new EventSeries({
    sink: {
      create: (event) => createEvent(client, event),
      patchSeries: (event, s) => patchEventSeries(client, event, s),
    },
    now: Date.now,
  });
  const sweeps = setInterval(() => void series.sweep(onError), 60_000);
  sweeps.unref();
  return { series, sweeps };
}

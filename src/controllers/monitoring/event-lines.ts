/**
 * Kubernetes Events as kubernetes-event-exporter's Loki sink writes them (monitoring.md §3.5), pure:
 * the stream labels are static (`job="kubernetes-event"` unless the operator adds more), the line is
 * the event as JSON (with event-exporter's `clusterName`), the time is the second it is sent, so
 * `{job="kubernetes-event"} | json | line_format "[{{.type}}] {{.reason}}: {{.message}}"` reads it.
 *
 * Which events are sent is filtered as event-exporter's route rules filter: each condition is a
 * field (`namespace`, `reason`, `type`, `kind`, `apiVersion`, `message`, `component`, `host`) and
 * a Go (RE2) regular expression that must match somewhere in it (unanchored, as Go's
 * regexp.MatchString); an event is sent when it matches every `match` condition and no `drop` one.
 */
import { RE2JS } from "re2js";
import { isObject, type JsonObject, type JsonValue } from "../../engine/index.js";
import type { LokiEntry } from "../../platform/loki/index.js";

const EVENT_FIELDS = ["namespace", "reason", "type", "kind", "apiVersion", "message", "component", "host"] as const;
type EventField = (typeof EVENT_FIELDS)[number];

interface EventCondition {
  readonly field: EventField;
  readonly pattern: RE2JS;
}

export interface EventFilter {
  readonly match: readonly EventCondition[];
  readonly drop: readonly EventCondition[];
}

function text(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : "";
}

/** `FIELD=REGEX` as a condition, or the reason it is not one (naming the flag). */
export function eventCondition(flag: string, spec: string): EventCondition | string {
  const at = spec.indexOf("=");
  const field = at > 0 ? spec.slice(0, at) : "";
  if (!(EVENT_FIELDS as readonly string[]).includes(field))
    return `${flag} ${JSON.stringify(spec)}: use FIELD=REGEX with FIELD one of ${EVENT_FIELDS.join(", ")}`;
  try {
    return { field: field as EventField, pattern: RE2JS.compile(spec.slice(at + 1)) };
  } catch (e) {
    return `${flag} ${JSON.stringify(spec)}: the regular expression does not compile (${(e as Error).message})`;
  }
}

function fieldOf(event: JsonObject, field: EventField): string {
  const involved = event["involvedObject"];
  const source = event["source"];
  switch (field) {
    case "namespace":
      return text(isObject(event["metadata"]) ? event["metadata"]["namespace"] : undefined);
    case "kind":
    case "apiVersion":
      return text(isObject(involved) ? involved[field] : undefined);
    case "component":
    case "host":
      return text(isObject(source) ? source[field] : undefined);
    default:
      return text(event[field]);
  }
}

const holds = (event: JsonObject, c: EventCondition): boolean => c.pattern.matcher(fieldOf(event, c.field)).find();

export function eventPasses(event: JsonObject, filter: EventFilter): boolean {
  return filter.match.every((c) => holds(event, c)) && !filter.drop.some((c) => holds(event, c));
}

/** The event's line (its JSON, as event-exporter serialises it) at the second `nowMs` falls in. */
export function eventEntry(event: JsonObject, nowMs: number): LokiEntry {
  const rest: JsonObject = { ...event };
  delete rest["apiVersion"];
  delete rest["kind"];
  return {
    timestampNs: BigInt(Math.floor(nowMs / 1000)) * 1_000_000_000n,
    line: JSON.stringify({ ...rest, clusterName: text(event["clusterName"]) }),
  };
}

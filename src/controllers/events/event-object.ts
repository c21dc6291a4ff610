/**
 * One events.k8s.io/v1 Event as Bylaw writes it, whichever component reports it: named as client-go
 * names Events (the regarding object's name and a unique hexadecimal time), in the regarding
 * object's namespace (`default` for a cluster-scoped one), its note cut to the API's 1 KiB, from
 * `reportingController` (Kyverno's component names: kyverno-admission, kyverno-scan, …).
 */
import { isObject, type JsonObject } from "../../engine/index.js";

/** The object an Event is about (`regarding`) or refers to (`related`). */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** "" for a cluster-scoped object. */
  readonly namespace: string;
  readonly uid?: string;
}

/** An Event as the API server takes it. */
export type KubeEvent = JsonObject & { readonly metadata: JsonObject };

/** An Event not built yet: the emitter builds it only if its queue has room for it. */
export type EventDraft = () => KubeEvent;

/** The reference to an object, `fallback` giving apiVersion and kind where the object has none. */
export function objectRef(object: JsonObject, fallback: { apiVersion: string; kind: string }): ObjectRef {
  const meta = isObject(object["metadata"]) ? object["metadata"] : {};
  const text = (v: unknown): string => (typeof v === "string" ? v : "");
  return {
    apiVersion: text(object["apiVersion"]) || fallback.apiVersion,
    kind: text(object["kind"]) || fallback.kind,
    name: text(meta["name"]),
    namespace: text(meta["namespace"]),
    ...(typeof meta["uid"] === "string" && meta["uid"] !== "" ? { uid: meta["uid"] } : {}),
  };
}

interface EventInput {
  readonly regarding: ObjectRef;
  readonly related?: ObjectRef;
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly action: string;
  readonly note: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
  /** The reporting component (`reportingController`), e.g. kyverno-admission. */
  readonly controller: string;
  /** This replica (its Pod's name); `reportingInstance` is `<controller>-<instance>`. */
  readonly instance: string;
}

export function eventObject(input: EventInput): KubeEvent {
  const { regarding } = input;
  const micro = microTime(input.now);
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: {
      // An object name may take 253 characters: the suffix must still fit.
      name: `${regarding.name.slice(0, 200)}.${uniqueHex(input.now)}`,
      namespace: regarding.namespace === "" ? "default" : regarding.namespace,
    },
    eventTime: micro,
    type: input.type,
    reason: input.reason,
    action: input.action,
    note: input.note.slice(0, 1024),
    reportingController: input.controller,
    reportingInstance: `${input.controller}-${input.instance}`.slice(0, 128),
    regarding: refJson(regarding),
    ...(input.related !== undefined ? { related: refJson(input.related) } : {}),
  };
}

/** A MicroTime (RFC 3339 with microseconds) of milliseconds since the epoch. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

let sequence = 0;

/** Nanoseconds since the epoch (the milliseconds, and a sequence below them), in hexadecimal. */
function uniqueHex(now: number): string {
  sequence = (sequence + 1) % 1_000_000;
  return (BigInt(Math.floor(now)) * 1_000_000n + BigInt(sequence)).toString(16);
}

function refJson(r: ObjectRef): JsonObject {
  return {
    apiVersion: r.apiVersion,
    kind: r.kind,
    name: r.name,
    ...(r.namespace !== "" ? { namespace: r.namespace } : {}),
    ...(r.uid !== undefined ? { uid: r.uid } : {}),
  };
}

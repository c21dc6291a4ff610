/**
 * The Events the cleanup controller writes (events.k8s.io/v1), as Kyverno's cleanup controller
 * words them (`pkg/event`): regarding the policy, related to the object, from the `kyverno-cleanup`
 * controller; `PolicyApplied` "successfully cleaned up the target resource <kind>/<ns>/<name>" or
 * `PolicyError` "failed to clean up the target resource <kind>/<ns>/<name>: <error>". An object whose
 * `cleanup.kyverno.io/ttl` label cannot be read gets a Warning of Bylaw's own (`InvalidTTL`): Kyverno
 * only logs it.
 */
import { isObject, type JsonObject } from "../../engine/index.js";

const EVENT_SOURCE = "kyverno-cleanup";

export interface PolicyRef {
  readonly kind: string;
  readonly name: string;
  /** "" for a ClusterCleanupPolicy. */
  readonly namespace: string;
  readonly uid: string;
}

interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly uid?: string;
}

export function objectRef(object: JsonObject, fallback: { apiVersion: string; kind: string }): ObjectRef {
  const meta = isObject(object["metadata"]) ? object["metadata"] : {};
  const text = (v: unknown): string => (typeof v === "string" ? v : "");
  return {
    apiVersion: text(object["apiVersion"]) || fallback.apiVersion,
    kind: text(object["kind"]) || fallback.kind,
    name: text(meta["name"]),
    namespace: text(meta["namespace"]),
    ...(typeof meta["uid"] === "string" ? { uid: meta["uid"] } : {}),
  };
}

interface EventInput {
  readonly regarding: ObjectRef;
  readonly related?: ObjectRef;
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly action: string;
  readonly note: string;
  readonly now: number;
  readonly instance: string;
}

function event(input: EventInput): JsonObject & { metadata: JsonObject } {
  const { regarding } = input;
  const micro = new Date(input.now).toISOString().replace(/Z$/, "000Z");
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: {
      // As client-go names Events: the object's name and a unique hexadecimal time.
      name: `${regarding.name}.${uniqueHex(input.now)}`,
      namespace: regarding.namespace === "" ? "default" : regarding.namespace,
    },
    eventTime: micro,
    type: input.type,
    reason: input.reason,
    action: input.action,
    note: input.note.slice(0, 1024),
    reportingController: EVENT_SOURCE,
    reportingInstance: `${EVENT_SOURCE}-${input.instance}`.slice(0, 128),
    regarding: refJson(regarding),
    ...(input.related !== undefined ? { related: refJson(input.related) } : {}),
  };
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

/** Kyverno's event for one cleanup: `error` undefined when the object was deleted. */
export function cleanupEvent(input: {
  readonly policy: PolicyRef;
  readonly target: ObjectRef;
  readonly error: string | undefined;
  readonly now: number;
  readonly instance: string;
}): JsonObject & { metadata: JsonObject } {
  const { policy, target } = input;
  const what = `${target.kind}/${target.namespace}/${target.name}`;
  return event({
    regarding: {
      apiVersion: "kyverno.io/v2",
      kind: policy.kind,
      name: policy.name,
      namespace: policy.namespace,
      uid: policy.uid,
    },
    related: target,
    type: input.error === undefined ? "Normal" : "Warning",
    reason: input.error === undefined ? "PolicyApplied" : "PolicyError",
    action: input.error === undefined ? "ResourceCleanedUp" : "None",
    note:
      input.error === undefined
        ? `successfully cleaned up the target resource ${what}`
        : `failed to clean up the target resource ${what}: ${input.error}`,
    now: input.now,
    instance: input.instance,
  });
}

/** Bylaw's Warning on an object whose TTL label cannot be read (it is not deleted). */
export function invalidTtlEvent(input: {
  readonly target: ObjectRef;
  readonly message: string;
  readonly now: number;
  readonly instance: string;
}): JsonObject & { metadata: JsonObject } {
  return event({
    regarding: input.target,
    type: "Warning",
    reason: "InvalidTTL",
    action: "None",
    note: `${input.message}; the object is not deleted`,
    now: input.now,
    instance: input.instance,
  });
}

/**
 * The Events the cleanup controller writes (events.k8s.io/v1), as Kyverno's cleanup controller
 * words them (`pkg/event`): regarding the policy, related to the object, from the `kyverno-cleanup`
 * controller; `PolicyApplied` "successfully cleaned up the target resource <kind>/<ns>/<name>" or
 * `PolicyError` "failed to clean up the target resource <kind>/<ns>/<name>: <error>". An object whose
 * `cleanup.kyverno.io/ttl` label cannot be read gets a Warning of Bylaw's own (`InvalidTTL`): Kyverno
 * only logs it.
 */
import { eventObject, objectRef, type KubeEvent, type ObjectRef } from "../events/index.js";

export { objectRef };

const EVENT_SOURCE = "kyverno-cleanup";

export interface PolicyRef {
  readonly kind: string;
  readonly name: string;
  /** "" for a ClusterCleanupPolicy. */
  readonly namespace: string;
  readonly uid: string;
  /** The policy's apiVersion (default kyverno.io/v2; a DeletingPolicy's is policies.kyverno.io's). */
  readonly apiVersion?: string;
}

/** Kyverno's event for one cleanup: `error` undefined when the object was deleted. */
export function cleanupEvent(input: {
  readonly policy: PolicyRef;
  readonly target: ObjectRef;
  readonly error: string | undefined;
  readonly now: number;
  readonly instance: string;
}): KubeEvent {
  const { policy, target } = input;
  const what = `${target.kind}/${target.namespace}/${target.name}`;
  return eventObject({
    regarding: {
      apiVersion: policy.apiVersion ?? "kyverno.io/v2",
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
    controller: EVENT_SOURCE,
    instance: input.instance,
  });
}

/** Bylaw's Warning on an object whose TTL label cannot be read (it is not deleted). */
export function invalidTtlEvent(input: {
  readonly target: ObjectRef;
  readonly message: string;
  readonly now: number;
  readonly instance: string;
}): KubeEvent {
  return eventObject({
    regarding: input.target,
    type: "Warning",
    reason: "InvalidTTL",
    action: "None",
    note: `${input.message}; the object is not deleted`,
    now: input.now,
    controller: EVENT_SOURCE,
    instance: input.instance,
  });
}

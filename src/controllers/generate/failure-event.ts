/**
 * The Event a failed generate request leaves on its policy, as Kyverno's background controller
 * writes it (`pkg/event` NewBackgroundFailedEvent, source `kyverno-generate`): an events.k8s.io/v1
 * Warning with reason PolicyError regarding the policy, related to the trigger, its note
 * `policy <name>/<rule> error: <message>`. A ClusterPolicy's Events go to namespace default.
 */
import type { JsonObject } from "../../engine/index.js";
import type { UpdateRequest } from "./update-request.js";

const GENERATE_SOURCE = "kyverno-generate";

interface FailedPolicy {
  readonly kind: string;
  readonly name: string;
  /** "" for a ClusterPolicy. */
  readonly namespace: string;
  readonly uid: string;
}

export function failureEvent(
  ur: UpdateRequest,
  failure: {
    readonly policy: FailedPolicy;
    readonly message: string;
    readonly now: Date;
    readonly instance: string;
    /** Makes the Event's name unique: `<policy>.<suffix>` (lowercase hex). */
    readonly suffix: string;
  },
): JsonObject {
  const p = failure.policy;
  const namespace = p.namespace !== "" ? p.namespace : "default";
  const rules = ur.rules.map((r) => r.rule).join(",");
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: `${p.name.slice(0, 200)}.${failure.suffix}`, namespace },
    eventTime: failure.now.toISOString().replace(/Z$/, "000Z"),
    reportingController: GENERATE_SOURCE,
    reportingInstance: `${GENERATE_SOURCE}-${failure.instance}`.slice(0, 128),
    action: "None",
    reason: "PolicyError",
    type: "Warning",
    regarding: {
      apiVersion: "kyverno.io/v1",
      kind: p.kind,
      name: p.name,
      ...(p.namespace !== "" ? { namespace: p.namespace } : {}),
      ...(p.uid !== "" ? { uid: p.uid } : {}),
    },
    related: {
      apiVersion: ur.trigger.apiVersion,
      kind: ur.trigger.kind,
      name: ur.trigger.name,
      ...(ur.trigger.namespace !== "" ? { namespace: ur.trigger.namespace } : {}),
      ...(ur.trigger.uid !== "" ? { uid: ur.trigger.uid } : {}),
    },
    note: `policy ${p.name}/${rules} error: ${failure.message}`.slice(0, 1024),
  };
}

/**
 * The Event a failed generate request leaves on its policy, as Kyverno's background controller
 * writes it (`pkg/event` NewBackgroundFailedEvent, source `kyverno-generate`): an events.k8s.io/v1
 * Warning with reason PolicyError regarding the policy, related to the trigger, its note
 * `policy <name>/<rule> error: <message>`. A ClusterPolicy's Events go to namespace default.
 */
import type { CompiledPolicy, JsonObject } from "../../engine/index.js";
import type { UpdateRequest } from "./update-request.js";

const GENERATE_SOURCE = "kyverno-generate";

export interface FailedPolicy {
  /** The policy's own apiVersion (kyverno.io/v1, policies.kyverno.io/v1, …). */
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** "" for a ClusterPolicy. */
  readonly namespace: string;
  readonly uid: string;
}

/** The Event's view of a loaded policy. */
export function failedPolicyOf(policy: CompiledPolicy): FailedPolicy {
  const { apiVersion, metadata } = policy.document as { apiVersion?: unknown; metadata?: { uid?: unknown } };
  return {
    apiVersion: typeof apiVersion === "string" ? apiVersion : "kyverno.io/v1",
    kind: policy.kind,
    name: policy.name,
    namespace: policy.namespace,
    uid: typeof metadata?.uid === "string" ? metadata.uid : "",
  };
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
  return policyErrorEvent({
    ...failure,
    rules: ur.rules.map((r) => r.rule),
    related: ur.trigger,
  });
}

interface RelatedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * A PolicyError Event on a policy from the background controller (`kyverno-generate`), related to
 * an object when one caused it; its note `policy <name>/<rules> error: <message>` (without rules:
 * `policy <name> error: …`).
 */
export function policyErrorEvent(failure: {
  readonly policy: FailedPolicy;
  readonly rules: readonly string[];
  readonly related?: RelatedObject;
  readonly message: string;
  readonly now: Date;
  readonly instance: string;
  /** Makes the Event's name unique: `<policy>.<suffix>` (lowercase hex). */
  readonly suffix: string;
}): JsonObject {
  const p = failure.policy;
  const namespace = p.namespace !== "" ? p.namespace : "default";
  const rules = failure.rules.length > 0 ? `/${failure.rules.join(",")}` : "";
  const r = failure.related;
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
      apiVersion: p.apiVersion,
      kind: p.kind,
      name: p.name,
      ...(p.namespace !== "" ? { namespace: p.namespace } : {}),
      ...(p.uid !== "" ? { uid: p.uid } : {}),
    },
    ...(r !== undefined
      ? {
          related: {
            apiVersion: r.apiVersion,
            kind: r.kind,
            name: r.name,
            ...(r.namespace !== "" ? { namespace: r.namespace } : {}),
            ...(r.uid !== "" ? { uid: r.uid } : {}),
          },
        }
      : {}),
    note: `policy ${p.name}${rules} error: ${failure.message}`.slice(0, 1024),
  };
}

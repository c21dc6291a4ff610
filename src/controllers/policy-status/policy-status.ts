/**
 * The `status` of a ClusterPolicy or Policy as Kyverno v1.19 writes it (api/kyverno/v1/policy_status.go,
 * the webhook controller's status update), built without I/O:
 * - `conditions`: one `Ready` condition, `True` with reason `Succeeded` and message `Ready` when the
 *   policy is served (and, with registration, its webhook is in the configurations the API server
 *   stored); `False` with reason `Failed` and a message naming each problem (or the API server's
 *   refusal) when it is not.
 *   `lastTransitionTime` moves only when the condition's status changes (as meta.SetStatusCondition);
 *   other conditions are kept as they are;
 * - `autogen.rules`: the generated pod-controller rules (`autogen-…`, `autogen-cronjob-…`);
 * - `rulecount`: validate, generate, mutate and verifyimages rules among the policy's own rules;
 * - `validatingadmissionpolicy`: `{generated: false, message: ""}` (Bylaw generates none).
 */
import {
  kyvernoCompiledRules,
  cloneJson,
  type CompiledPolicy,
  isObject,
  type JsonObject,
  type JsonValue,
  kindDescriptor,
} from "../../engine/index.js";
import { celKindInfo, type CelPolicyKind } from "../../kube/cel-policy-kinds.js";
import { celDesiredStatus } from "./cel-policy-status.js";
import { gvrPath } from "../../kube/types.js";
import type { WebhookState } from "./policy-status-writer.js";

const READY = "Ready";
export const REASON_SUCCEEDED = "Succeeded";
export const REASON_FAILED = "Failed";
/** The CRD's (metav1.Condition's) bound on a condition message. */
export const MAX_CONDITION_MESSAGE = 32768;

export type PolicyOutcomeKind = "ClusterPolicy" | "Policy" | CelPolicyKind;

/** One policy object as loaded from the cluster: served (compiled) or not (problems). */
export interface PolicyOutcome {
  readonly kind: PolicyOutcomeKind;
  /** "" for a cluster-wide kind. */
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly generation: number | undefined;
  /** `spec.rules` as stored, for the rule counts (also of a policy that does not compile). */
  readonly rules: readonly JsonValue[];
  /** `spec` as stored, for a policies.kyverno.io policy's `status.autogen` (also of one that does not compile). */
  readonly spec?: JsonValue;
  /** The status the object carries now. */
  readonly status: JsonValue | undefined;
  /** Set when the policy is served. */
  readonly compiled?: CompiledPolicy;
  /** Why the policy is not served (`field: message` each); empty when it is. */
  readonly problems: readonly string[];
  /** A served policy with parts Bylaw does not run (a kind it answers with this error, a generate rule…): not Ready. */
  readonly notEvaluated?: string;
}

/** RFC 3339 to the second, as metav1.Time is written. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The message of a not-Ready condition: each problem, within the CRD's bound. */
export function notReadyMessage(problems: readonly string[]): string {
  const text = `not served by Bylaw: ${problems.join("; ")}`;
  return text.length <= MAX_CONDITION_MESSAGE ? text : `${text.slice(0, MAX_CONDITION_MESSAGE - 1)}…`;
}

/** Kyverno's rule counts: the policy's own rules (not `autogen-…`), by the rule types each has. */
export function ruleCount(rules: readonly JsonValue[]): {
  validate: number;
  generate: number;
  mutate: number;
  verifyimages: number;
} {
  const count = { validate: 0, generate: 0, mutate: 0, verifyimages: 0 };
  for (const r of rules) {
    if (!isObject(r) || (typeof r["name"] === "string" && r["name"].startsWith("autogen-"))) continue;
    if (isObject(r["validate"])) count.validate++;
    if (isObject(r["generate"])) count.generate++;
    if (isObject(r["mutate"])) count.mutate++;
    if (Array.isArray(r["verifyImages"]) && r["verifyImages"].length > 0) count.verifyimages++;
  }
  return count;
}

/**
 * The status this policy should carry, given the one it carries (`outcome.status`) and the time now;
 * with `webhook` (registration), a served policy the API server does not send requests for is not Ready.
 */
export function desiredStatus(
  outcome: PolicyOutcome,
  nowMs: number,
  webhook?: WebhookState,
  /** A policies.kyverno.io policy's refusals for background reporting (undefined: not checked). */
  reporting?: readonly string[],
): JsonObject {
  if (kindDescriptor(outcome.kind)?.status !== "kyverno") return celDesiredStatus(outcome, nowMs, webhook, reporting);
  const existing = isObject(outcome.status) ? outcome.status : {};
  const unregistered = outcome.compiled !== undefined && webhook?.registered === false ? webhook.message : undefined;
  const ready = outcome.compiled !== undefined && unregistered === undefined && outcome.notEvaluated === undefined;
  const conditions = Array.isArray(existing["conditions"]) ? existing["conditions"] : [];
  const previous = conditions.find((c) => isObject(c) && c["type"] === READY);
  const status = ready ? "True" : "False";
  const keepTime =
    isObject(previous) && previous["status"] === status && typeof previous["lastTransitionTime"] === "string";
  const condition: JsonObject = {
    type: READY,
    status,
    reason: ready ? REASON_SUCCEEDED : REASON_FAILED,
    message: ready
      ? "Ready"
      : notReadyMessage(
          unregistered !== undefined
            ? [unregistered]
            : outcome.notEvaluated !== undefined
              ? [outcome.notEvaluated]
              : outcome.problems,
        ),
    lastTransitionTime: keepTime ? (previous["lastTransitionTime"] as string) : rfc3339(nowMs),
    ...(outcome.generation !== undefined ? { observedGeneration: outcome.generation } : {}),
  };
  const others = conditions.filter((c) => !(isObject(c) && c["type"] === READY));
  const autogen = (outcome.compiled === undefined ? [] : kyvernoCompiledRules(outcome.compiled))
    .filter((r) => r.name.startsWith("autogen-"))
    .map((r) => cloneJson(r.rule as unknown as JsonValue));
  return {
    conditions: [...others, condition],
    autogen: autogen.length > 0 ? { rules: autogen } : {},
    rulecount: ruleCount(outcome.rules),
    validatingadmissionpolicy: { generated: false, message: "" },
  };
}

/**
 * The JSON merge patch that makes the stored status the desired one, guarded by the object's uid and
 * resourceVersion (a conflict means it changed since; its next event brings the new state). Keys of
 * the stored status that the desired one lacks (an `autogen.rules` no longer generated) are removed.
 */
export function statusPatch(outcome: PolicyOutcome, desired: JsonObject): JsonObject {
  const existing = isObject(outcome.status) ? outcome.status : {};
  return {
    metadata: { uid: outcome.uid, resourceVersion: outcome.resourceVersion },
    status: withRemovals(existing, desired),
  };
}

function withRemovals(existing: JsonObject, desired: JsonObject): JsonObject {
  const out: JsonObject = { ...desired };
  for (const [k, v] of Object.entries(existing)) {
    const want = desired[k];
    if (want === undefined) out[k] = null;
    else if (isObject(v) && isObject(want) && !Array.isArray(v) && !Array.isArray(want)) out[k] = withRemovals(v, want);
  }
  return out;
}

/** The object's status subresource path. */
export function statusPath(outcome: Pick<PolicyOutcome, "kind" | "namespace" | "name">): string {
  const name = encodeURIComponent(outcome.name);
  const cel = celKindInfo(outcome.kind);
  if (cel !== undefined) return `${gvrPath(cel.gvr, cel.namespaced ? outcome.namespace : undefined)}/${name}/status`;
  return kindDescriptor(outcome.kind)?.scope === "cluster"
    ? `/apis/kyverno.io/v1/clusterpolicies/${name}/status`
    : `/apis/kyverno.io/v1/namespaces/${encodeURIComponent(outcome.namespace)}/policies/${name}/status`;
}

/**
 * The Events of policy results, as Kyverno words them (pkg/event, pkg/webhooks/utils/event.go):
 * - a policy with a failing or erroring rule: `PolicyViolation` regarding the policy, related to the
 *   resource, per such rule: `<Kind> <ns>/<name>: [<rule>] fail (blocked); <message>` ("(blocked)"
 *   when the request was denied); and, unless the request was denied (the object does not exist),
 *   `PolicyViolation` regarding the resource per rule of that policy:
 *   `policy <policy>/<rule> <status>: <message>`;
 * - a policy whose rules applied: `PolicyApplied` regarding the policy:
 *   `<Kind> <ns>/<name>: pass` when it validates, `<Kind> <ns>/<name> is successfully mutated` when it
 *   only mutates;
 * - a generated or mutated target: `PolicyApplied` regarding the policy, related to the target,
 *   "resource generated" / "resource mutated".
 * - a rule a kyverno.io PolicyException skipped: `PolicySkipped` regarding each exception
 *   (`resource <Kind>/<ns>/<name> was skipped from policy rule <policy>/<rule>`) and regarding the
 *   policy (`… was skipped from rule <rule> due to policy exceptions <ns>/<name>, …`);
 * - a background scan: the failures' PolicyViolation Events and the exceptions' PolicySkipped ones.
 * A failure of background work is `PolicyError`. PolicyApplied and PolicySkipped are Normal Events,
 * the others Warnings. An object without a name yet (generateName) gets no Event of its own.
 */
import {
  hasImageVerifyRules,
  hasValidateRules,
  isObject,
  type CompiledPolicy,
  type JsonObject,
  type PolicyResponse,
  type RuleResult,
} from "../../engine/index.js";
import { eventObject, objectRef, type EventDraft, type KubeEvent, type ObjectRef } from "./event-object.js";

/** Kyverno's event reasons. */
export const EVENT_REASONS = ["PolicyViolation", "PolicyApplied", "PolicyError", "PolicySkipped"] as const;
type EventReason = (typeof EVENT_REASONS)[number];

/** Who reports, and when. */
export interface EventOrigin {
  /** The reporting component, e.g. kyverno-admission. */
  readonly controller: string;
  readonly instance: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
  /** Reasons not emitted (`--omit-events`). */
  readonly omit?: ReadonlySet<string>;
}

/**
 * The Events of one request's policy responses for `resource`, as drafts: an Event the emitter's
 * full queue drops is never built (with the policy library loaded, a Pod create makes dozens).
 */
export function policyResultEvents(input: {
  readonly responses: readonly PolicyResponse[];
  readonly resource: JsonObject;
  /** The request was denied: the object was not stored. */
  readonly blocked: boolean;
  readonly origin: EventOrigin;
}): EventDraft[] {
  const events: EventDraft[] = [];
  const resource = objectRef(input.resource, { apiVersion: "", kind: "" });
  for (const response of input.responses) {
    if (response.rules.length === 0) continue;
    const bad = response.rules.some((r) => r.status === "fail" || r.status === "error");
    // As Kyverno's webhooks: a response with a skipped rule makes no PolicyApplied, only the
    // PolicySkipped Events of the rules an exception skipped.
    if (bad) events.push(...violationEvents(response, resource, input.blocked, input.origin));
    else if (response.rules.some((r) => r.status === "skip")) {
      if (!input.blocked) events.push(...exceptionEvents(response, resource, input.origin));
    } else events.push(...applied(response.policy, resource, input.origin));
  }
  return events;
}

/**
 * The Events of a background scan's responses for `resource` (Kyverno's reports controller,
 * pkg/controllers/report/utils/events.go): per failing, warning or erroring rule, PolicyViolation on
 * the resource and on the policy (never blocked); PolicySkipped for the rules an exception skipped.
 * A pass makes none (Kyverno's `generateSuccessEvents` is off by default). As drafts: a scan of
 * thousands of failing resources offers far more Events than the emitter's bounded queue takes, and
 * a draft the emitter drops is never built (issue 35: building them all was a twentieth of a first
 * scan's CPU).
 */
export function scanResultEvents(input: {
  readonly responses: readonly PolicyResponse[];
  readonly resource: JsonObject;
  readonly origin: EventOrigin;
}): EventDraft[] {
  const resource = objectRef(input.resource, { apiVersion: "", kind: "" });
  return input.responses.flatMap((response) => [
    ...response.rules
      .filter((r) => r.status !== "pass" && r.status !== "skip")
      .flatMap((r) => [
        ...(resource.name !== "" ? resourceEvent(response.policy, r, resource, input.origin) : []),
        ...policyFailEvent({ policy: response.policy, rule: r, resource, blocked: false }, input.origin),
      ]),
    ...exceptionEvents(response, resource, input.origin),
  ]);
}

/** What Kyverno's exception Events name as their subject (it writes this apiVersion whatever the exception's). */
const EXCEPTION_KIND = { apiVersion: "kyverno.io/v2", kind: "PolicyException" } as const;

/**
 * PolicySkipped for each rule a kyverno.io PolicyException skipped (Kyverno's
 * NewPolicyExceptionEvents, which makes none for the policies.kyverno.io kinds): one regarding each
 * exception, one regarding the policy naming them all, both related to the resource.
 */
function exceptionEvents(response: PolicyResponse, resource: ObjectRef, origin: EventOrigin): EventDraft[] {
  const policy = response.policy;
  if (policy.language !== "kyverno") return [];
  const key = [resource.kind, ...(resource.namespace !== "" ? [resource.namespace] : []), resource.name].join("/");
  const policyPath = policy.namespace !== "" ? `${policy.namespace}/${policy.name}` : policy.name;
  return response.rules
    .filter((r) => r.status === "skip" && (r.exceptions?.length ?? 0) > 0)
    .flatMap((r) => {
      const names = r.exceptions ?? [];
      const skipped = (regarding: ObjectRef, note: string): EventDraft[] =>
        make(origin, { regarding, related: resource, reason: "PolicySkipped", action: "Resource Passed", note });
      return [
        ...names.flatMap((n) => {
          const at = n.indexOf("/");
          return skipped(
            { ...EXCEPTION_KIND, namespace: at < 0 ? "" : n.slice(0, at), name: n.slice(at + 1) },
            `resource ${key} was skipped from policy rule ${policyPath}/${r.rule}`,
          );
        }),
        ...skipped(
          policyRef(policy),
          `resource ${key} was skipped from rule ${r.rule} due to policy exceptions ${names.join(", ")}`,
        ),
      ];
    });
}

function violationEvents(
  response: PolicyResponse,
  resource: ObjectRef,
  blocked: boolean,
  origin: EventOrigin,
): EventDraft[] {
  const events: EventDraft[] = [];
  for (const r of response.rules) {
    if (r.status === "fail" || r.status === "error")
      events.push(...policyFailEvent({ policy: response.policy, rule: r, resource, blocked }, origin));
    if (!blocked && resource.name !== "") events.push(...resourceEvent(response.policy, r, resource, origin));
  }
  return events;
}

/** PolicyViolation regarding the policy, related to the resource: `<Kind> <ns>/<name>: [<rule>] <status>; <message>`. */
function policyFailEvent(
  f: {
    readonly policy: CompiledPolicy;
    readonly rule: RuleResult;
    readonly resource: ObjectRef;
    readonly blocked: boolean;
  },
  origin: EventOrigin,
): EventDraft[] {
  const { rule: r, blocked } = f;
  const note = `${describe(f.resource)}: [${r.rule}] ${r.status}${blocked ? " (blocked)" : ""}${r.message !== "" ? `; ${r.message}` : ""}`;
  return make(origin, {
    regarding: policyRef(f.policy),
    related: f.resource,
    reason: "PolicyViolation",
    action: blocked ? "Resource Blocked" : "Resource Passed",
    note,
  });
}

function resourceEvent(policy: CompiledPolicy, r: RuleResult, resource: ObjectRef, origin: EventOrigin): EventDraft[] {
  return make(origin, {
    regarding: resource,
    reason: "PolicyViolation",
    action: "Resource Passed",
    note: `policy ${policy.name}/${r.rule} ${r.status}: ${r.message}`,
  });
}

function applied(policy: CompiledPolicy, resource: ObjectRef, origin: EventOrigin): EventDraft[] {
  const validates = hasValidateRules(policy) || hasImageVerifyRules(policy);
  return make(origin, {
    regarding: policyRef(policy),
    related: resource,
    reason: "PolicyApplied",
    action: validates ? "Resource Passed" : "Resource Mutated",
    note: validates ? `${describe(resource)}: pass` : `${describe(resource)} is successfully mutated`,
  });
}

/** PolicyApplied for each target background work generated (or mutated), regarding the policy. */
export function backgroundAppliedEvents(input: {
  readonly policy: CompiledPolicy;
  readonly targets: readonly ObjectRef[];
  readonly mutated: boolean;
  readonly origin: EventOrigin;
}): KubeEvent[] {
  return input.targets.flatMap((t) =>
    make(input.origin, {
      regarding: policyRef(input.policy),
      related: t.uid === "" ? { apiVersion: t.apiVersion, kind: t.kind, name: t.name, namespace: t.namespace } : t,
      reason: "PolicyApplied",
      action: input.mutated ? "Resource Mutated" : "Resource Generated",
      note: input.mutated ? "resource mutated" : "resource generated",
    }).map((draft) => draft()),
  );
}

/** The reference to a policy, as its own document names it. */
function policyRef(policy: CompiledPolicy): ObjectRef {
  const meta = policy.origin.document["metadata"];
  const uid = isObject(meta) && typeof meta["uid"] === "string" && meta["uid"] !== "" ? meta["uid"] : undefined;
  return {
    apiVersion: policy.origin.apiVersion,
    kind: policy.kind,
    name: policy.name,
    namespace: policy.namespace,
    ...(uid !== undefined ? { uid } : {}),
  };
}

/** `Kind ns/name`, or `Kind name` for a cluster-scoped object. */
function describe(r: ObjectRef): string {
  return r.namespace !== "" ? `${r.kind} ${r.namespace}/${r.name}` : `${r.kind} ${r.name}`;
}

interface Made {
  readonly regarding: ObjectRef;
  readonly related?: ObjectRef;
  readonly reason: EventReason;
  readonly action: string;
  readonly note: string;
}

/** One Event not built yet, or none when its reason is omitted. */
function make(origin: EventOrigin, m: Made): EventDraft[] {
  if (origin.omit?.has(m.reason) === true) return [];
  return [
    () =>
      eventObject({
        ...m,
        type: m.reason === "PolicyApplied" || m.reason === "PolicySkipped" ? "Normal" : "Warning",
        now: origin.now,
        controller: origin.controller,
        instance: origin.instance,
      }),
  ];
}

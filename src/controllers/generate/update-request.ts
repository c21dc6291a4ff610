/**
 * UpdateRequests (`kyverno.io/v2`, Kyverno `api/kyverno/v2/updaterequest_types.go`): the durable
 * work queue of the background controller. Generate: the webhook writes one per policy and trigger
 * (spec.ruleContext: the rules that matched); a GeneratingPolicy's is a `cel-generate` one. Mutate (mutate-existing rules): one per policy, rule
 * and trigger (spec.rule); a mutate-existing MutatingPolicy's scan of its targets is a `cel-mutate` one, without a trigger. The controller runs it and marks it Completed (then deletes it) or Failed.
 */
import { isObject, type JsonObject, type JsonValue } from "../../engine/index.js";

const UR_API_VERSION = "kyverno.io/v2";

export interface ResourceSpec {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

interface RuleContext {
  readonly rule: string;
  readonly deleteDownstream: boolean;
  readonly synchronize: boolean;
  readonly trigger: ResourceSpec;
}

/** What the webhook hands over (src/server/admission/generate-work.ts has the same shape). */
export interface GenerateWorkItem {
  /**
   * `mutate`: a mutate-existing rule's work (src/controllers/mutate-existing/), its one rule in
   * `rules`; `cel-generate`: a GeneratingPolicy's; `cel-mutate`: a mutate-existing MutatingPolicy's
   * scan of its existing targets when it appears or changes (no trigger, no rules).
   */
  readonly requestType?: "mutate" | "cel-generate" | "cel-mutate";
  readonly policy: string;
  /** `trigger` is a synchronized rule's clone source that changed: each trigger with a copy is run again. */
  readonly sourceChanged?: boolean;
  readonly rules: readonly {
    readonly rule: string;
    readonly synchronize: boolean;
    readonly deleteDownstream: boolean;
  }[];
  readonly trigger: ResourceSpec;
  readonly operation: string;
  readonly userInfo: JsonObject;
  readonly admissionRequest: JsonObject;
}

type UrState = "Pending" | "Failed" | "Completed" | "Skip";

export interface UpdateRequest {
  readonly requestType: "generate" | "mutate" | "cel-generate" | "cel-mutate";
  readonly name: string;
  readonly namespace: string;
  readonly resourceVersion: string;
  readonly policy: string;
  readonly rules: readonly RuleContext[];
  readonly trigger: ResourceSpec;
  readonly operation: string;
  readonly userInfo: JsonObject;
  readonly admissionRequest: JsonObject | undefined;
  readonly state: UrState;
  readonly message: string;
  readonly retryCount: number;
}

/** The UpdateRequest object for one piece of work, in `namespace`. */
export function updateRequestObject(work: GenerateWorkItem, namespace: string): JsonObject {
  if (work.requestType === "mutate" || work.requestType === "cel-mutate") return mutateRequestObject(work, namespace);
  return {
    apiVersion: UR_API_VERSION,
    kind: "UpdateRequest",
    metadata: {
      generateName: "ur-",
      namespace,
      // Kyverno's UpdateRequest labels (api/kyverno/v1beta1 URGenerate*Label).
      labels: {
        "generate.kyverno.io/policy-name": work.policy.slice(work.policy.indexOf("/") + 1).slice(0, 63),
        "generate.kyverno.io/resource-name": truncateName(work.trigger.name),
        "generate.kyverno.io/resource-namespace": work.trigger.namespace,
        "generate.kyverno.io/resource-kind": work.trigger.kind,
      },
    },
    spec: {
      // A GeneratingPolicy's request is Kyverno's `cel-generate` (pkg/webhooks/resource/gpol): the same spec, its one rule context.
      requestType: work.requestType ?? "generate",
      policy: work.policy,
      rule: "",
      deleteDownstream: false,
      resource: { ...work.trigger },
      ruleContext: work.rules.map((r) => ({
        rule: r.rule,
        deleteDownstream: r.deleteDownstream,
        synchronize: r.synchronize,
        trigger: { ...work.trigger },
      })),
      context: {
        userInfo: { userInfo: work.userInfo },
        admissionRequestInfo: { admissionRequest: work.admissionRequest, operation: work.operation },
      },
    },
  };
}

/** A mutate UpdateRequest: its one rule in spec.rule (a cel-mutate scan: none), Kyverno's mutate.updaterequest.kyverno.io labels. */
function mutateRequestObject(work: GenerateWorkItem, namespace: string): JsonObject {
  const label = "mutate.updaterequest.kyverno.io/";
  return {
    apiVersion: UR_API_VERSION,
    kind: "UpdateRequest",
    metadata: {
      generateName: "ur-",
      namespace,
      labels: {
        [`${label}policy-name`]: work.policy.slice(work.policy.indexOf("/") + 1).slice(0, 63),
        [`${label}trigger-name`]: truncateName(work.trigger.name),
        [`${label}trigger-namespace`]: work.trigger.namespace,
        [`${label}trigger-kind`]: work.trigger.kind,
      },
    },
    spec: {
      requestType: work.requestType ?? "mutate",
      policy: work.policy,
      rule: work.rules[0]?.rule ?? "",
      deleteDownstream: false,
      resource: { ...work.trigger },
      context: {
        userInfo: { userInfo: work.userInfo },
        admissionRequestInfo: { admissionRequest: work.admissionRequest, operation: work.operation },
      },
    },
  };
}

/** A label value for a name: over 63 characters, its first 51 and "...truncated" (as Kyverno). */
function truncateName(name: string): string {
  return name.length > 63 ? `${name.slice(0, 51)}...truncated` : name;
}

const text = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
const obj = (v: JsonValue | undefined): JsonObject => (isObject(v) ? v : {});

function resourceSpec(v: JsonValue | undefined): ResourceSpec {
  const o = obj(v);
  return {
    apiVersion: text(o["apiVersion"]),
    kind: text(o["kind"]),
    namespace: text(o["namespace"]),
    name: text(o["name"]),
    uid: text(o["uid"]),
  };
}

function requestTypeOf(t: string): UpdateRequest["requestType"] {
  return t === "mutate" || t === "cel-generate" || t === "cel-mutate" ? t : "generate";
}

/** An UpdateRequest read from the cluster; a generate request missing its policy is still read (reconcile fails it). */
export function readUpdateRequest(o: JsonObject): UpdateRequest {
  const meta = obj(o["metadata"]);
  const spec = obj(o["spec"]);
  const status = obj(o["status"]);
  const trigger = resourceSpec(spec["resource"]);
  const contexts = Array.isArray(spec["ruleContext"]) ? spec["ruleContext"] : [];
  const rules: RuleContext[] = contexts.filter(isObject).map((c) => ({
    rule: text(c["rule"]),
    deleteDownstream: c["deleteDownstream"] === true,
    synchronize: c["synchronize"] === true,
    trigger: isObject(c["trigger"]) ? resourceSpec(c["trigger"]) : trigger,
  }));
  if (rules.length === 0 && text(spec["rule"]) !== "")
    rules.push({
      rule: text(spec["rule"]),
      deleteDownstream: spec["deleteDownstream"] === true,
      synchronize: spec["synchronize"] === true,
      trigger,
    });
  const context = obj(spec["context"]);
  const info = obj(context["admissionRequestInfo"]);
  const state = text(status["state"]);
  return {
    requestType: requestTypeOf(text(spec["requestType"])),
    name: text(meta["name"]),
    namespace: text(meta["namespace"]),
    resourceVersion: text(meta["resourceVersion"]),
    policy: text(spec["policy"]),
    rules,
    trigger,
    operation: text(info["operation"]) || "CREATE",
    userInfo: obj(obj(context["userInfo"])["userInfo"]),
    admissionRequest: isObject(info["admissionRequest"]) ? info["admissionRequest"] : undefined,
    state: state === "Failed" || state === "Completed" || state === "Skip" ? state : "Pending",
    message: text(status["message"]),
    retryCount: typeof status["retryCount"] === "number" ? status["retryCount"] : 0,
  };
}

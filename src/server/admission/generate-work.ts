/**
 * The generate work an allowed admission review brings (Kyverno `handleBackgroundApplies`, spec
 * §8.1 step 3): for each policy with generate rules, the rules that match the trigger, found after
 * the review's answer is decided. The generate controller stores each as an UpdateRequest
 * (src/controllers/generate/); the answer never waits on it.
 * - CREATE and UPDATE: every generate rule that matches the object (its preconditions and context
 *   are evaluated again by the controller).
 * - UPDATE of an object a synchronized rule matched before and no longer matches, and DELETE of an
 *   object a synchronized rule matches: `deleteDownstream` (its generated objects are removed).
 * - UPDATE or DELETE of a generated object (Kyverno's generate.kyverno.io labels) by anyone but the
 *   generate controller, for a synchronized rule: its trigger's rule is run again (the drift is
 *   reverted, a deleted copy comes back).
 * - UPDATE of an object a synchronized rule clones (clone.namespace/name, or cloneList's namespace
 *   and kinds): `sourceChanged`; the controller finds that rule's copies and runs each trigger again.
 * - A GeneratingPolicy (or Namespaced) it matches (matchConstraints and matchConditions, evaluated
 *   again by the controller): a `cel-generate` request, as Kyverno's gpol webhook makes one; when
 *   it synchronizes, DELETE of a trigger it matched, or an UPDATE after which it no longer matches
 *   (unless an exception exempts it), asks for its downstream to be deleted.
 * Dry-run reviews bring no work.
 */
import {
  type CompiledPolicy,
  err,
  type ExistingResources,
  isObject,
  type JsonObject,
  type PolicyResponse,
  resourceApiVersion,
  resourceKind,
  resourceName,
  resourceNamespace,
  kyvernoCompiledRules,
} from "../../engine/index.js";
import type { AdmissionDeps } from "./deps.js";
import { buildRequest, exceptionsOf } from "./build-request.js";
import { parseReview } from "./parse-review.js";
import { generatePlanOf, reachable } from "./plans.js";
import type { AdmissionRequestJson, WebhookSelector } from "./types.js";

interface GenerateRuleWork {
  readonly rule: string;
  readonly synchronize: boolean;
  readonly deleteDownstream: boolean;
}

/** Kyverno's ResourceSpec of the trigger. */
interface TriggerSpec {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface GenerateWork {
  /** `mutate`: a mutate-existing rule's work (mutate-existing-work.ts), its one rule in `rules`; `cel-generate`: a GeneratingPolicy's. */
  readonly requestType?: "mutate" | "cel-generate";
  /** Kyverno's policy key: `name` for a ClusterPolicy, `namespace/name` for a Policy. */
  readonly policy: string;
  /** The clone source of the rule changed: every trigger with a copy of it is run again (`trigger` is the source). */
  readonly sourceChanged?: boolean;
  readonly rules: readonly GenerateRuleWork[];
  readonly trigger: TriggerSpec;
  readonly operation: string;
  readonly userInfo: JsonObject;
  readonly admissionRequest: JsonObject;
}

type GeneratePlan = ReturnType<typeof generatePlanOf>;

/** Per policy, the rules a request matches; `exempt`: the GeneratingPolicies an exception exempts it from. */
type MatchedRules = Map<CompiledPolicy, Set<string>> & { readonly exempt: Set<CompiledPolicy> };

/** Nothing is read at admission: a clone that needs its source is left to the controller. */
const NOT_READ: ExistingResources = {
  get: () => err("pending", "not read at admission"),
  list: () => err("pending", "not read at admission"),
};

/** Kyverno's policy key: `name` for a ClusterPolicy (no namespace), `namespace/name` for a Policy. */
export function policyKey(policy: CompiledPolicy): string {
  return policy.namespace !== "" ? `${policy.namespace}/${policy.name}` : policy.name;
}

/** The work of one review body through `webhook` (none for a bad body, a dry run, or when none of its policies has generate rules). */
export function generateWorkFor(
  body: unknown,
  deps: Pick<AdmissionDeps, "engine" | "policies" | "cluster" | "exceptionNamespaces" | "plans" | "indexCandidates">,
  webhook?: WebhookSelector,
): GenerateWork[] {
  const parsed = parseReview(body);
  if (!parsed.ok || parsed.request.dryRun === true || byController(parsed.request)) return [];
  const request = parsed.request;
  const plan = generatePlanOf(deps, webhook);
  const policies = plan.policies;
  if (policies.length === 0) return [];
  return [...triggerWork(request, plan, deps), ...downstreamWork(request, policies), ...sourceWork(request, policies)];
}

/** The generate controller's own writes (it acts as the background controller's ServiceAccount) bring no work. */
export function byController(request: AdmissionRequestJson): boolean {
  return /^system:serviceaccount:[^:]+:bylaw-background-controller$/.test(request.userInfo.username ?? "");
}

type WalkDeps = Pick<AdmissionDeps, "engine" | "cluster" | "policies" | "exceptionNamespaces" | "indexCandidates">;

function triggerWork(request: AdmissionRequestJson, plan: GeneratePlan, deps: WalkDeps): GenerateWork[] {
  const policies = plan.policies;
  const now = request.operation === "DELETE" ? undefined : matchedRules(request, plan, deps);
  const before =
    request.operation === "DELETE" || request.operation === "UPDATE"
      ? matchedRules({ ...request, operation: "CREATE", object: request.oldObject ?? null }, plan, deps)
      : undefined;
  const object = (request.operation === "DELETE" ? request.oldObject : request.object) ?? {};
  const out: GenerateWork[] = [];
  for (const policy of policies) {
    const matchedNow = now?.get(policy) ?? new Set<string>();
    if (policy.language === "generating") {
      // A trigger an UPDATE takes out of the policy (matchConstraints or matchConditions) loses its
      // downstream, as a deleted one does: Kyverno's webhook lets a synchronized policy's UPDATEs
      // through whatever its matchConditions say, and its controller deletes what a trigger it no
      // longer matches generated. One a PolicyException exempts keeps it (Kyverno records a skip).
      const work = generatingWork(policy, {
        now: matchedNow,
        before: now?.exempt.has(policy) === true ? undefined : before?.get(policy),
      });
      if (work !== undefined)
        out.push({
          requestType: "cel-generate",
          policy: policyKey(policy),
          rules: [work],
          trigger: triggerSpec(object, request),
          operation: request.operation,
          userInfo: request.userInfo as unknown as JsonObject,
          admissionRequest: request as unknown as JsonObject,
        });
      continue;
    }
    const rules: GenerateRuleWork[] = [];
    for (const compiled of kyvernoCompiledRules(policy)) {
      const generate = compiled.rule.generate;
      if (!isObject(generate)) continue;
      const synchronize = generate["synchronize"] === true;
      if (matchedNow.has(compiled.name)) rules.push({ rule: compiled.name, synchronize, deleteDownstream: false });
      else if (synchronize && before?.get(policy)?.has(compiled.name) === true)
        rules.push({ rule: compiled.name, synchronize, deleteDownstream: true });
    }
    if (rules.length === 0) continue;
    out.push({
      policy: policyKey(policy),
      rules,
      trigger: triggerSpec(object, request),
      operation: request.operation,
      userInfo: request.userInfo as unknown as JsonObject,
      admissionRequest: request as unknown as JsonObject,
    });
  }
  return out;
}

/** A GeneratingPolicy's one piece of work for a trigger it matches now (or matched before and synchronizes), else undefined. */
function generatingWork(
  policy: CompiledPolicy,
  matched: { readonly now: ReadonlySet<string>; readonly before: ReadonlySet<string> | undefined },
): GenerateRuleWork | undefined {
  const synchronize = policy.language === "generating" && policy.generating.synchronize;
  const [rule] = [...matched.now];
  if (rule !== undefined) return { rule, synchronize, deleteDownstream: false };
  const [was] = [...(matched.before ?? [])];
  return synchronize && was !== undefined ? { rule: was, synchronize, deleteDownstream: true } : undefined;
}

/**
 * Per policy, the generate rules that match the request (a rule error or skip still matched); a
 * GeneratingPolicy a policies.kyverno.io PolicyException exempts for it matches nothing, and is
 * listed in `exempt`.
 */
function matchedRules(request: AdmissionRequestJson, plan: GeneratePlan, deps: WalkDeps): MatchedRules {
  const out: MatchedRules = Object.assign(new Map<CompiledPolicy, Set<string>>(), {
    exempt: new Set<CompiledPolicy>(),
  });
  if (!isObject(request.object)) return out;
  const exceptions = plan.policies.some((p) => p.language === "generating") ? exceptionsOf(deps) : undefined;
  const subject = buildRequest(request, deps.cluster, plan.policies, exceptions);
  const prepared = deps.engine.prepare(subject.engineRequest);
  // A policy the candidate index rules out would match no rule: it is left out, as matching nothing.
  const policies = reachable(plan, () => prepared, {
    indexCandidates: deps.indexCandidates,
  });
  for (const policy of policies) {
    let response: PolicyResponse;
    try {
      response = deps.engine.generate(policy, prepared, NOT_READ);
    } catch {
      continue;
    }
    const exempt = (r: PolicyResponse["rules"][number]): boolean =>
      policy.language === "generating" && (r.exceptions?.length ?? 0) > 0 && r.generated === undefined;
    if (response.rules.some(exempt)) out.exempt.add(policy);
    out.set(policy, new Set(response.rules.filter((r) => !exempt(r)).map((r) => r.rule)));
  }
  return out;
}

export function triggerSpec(object: JsonObject, request: AdmissionRequestJson): TriggerSpec {
  const group = request.kind.group;
  const meta = isObject(object["metadata"]) ? object["metadata"] : {};
  return {
    apiVersion:
      resourceApiVersion(object) || (group === "" ? request.kind.version : `${group}/${request.kind.version}`),
    kind: resourceKind(object) || request.kind.kind,
    namespace: resourceNamespace(object) || (request.namespace ?? ""),
    name: resourceName(object) || (request.name ?? ""),
    uid: typeof meta["uid"] === "string" ? meta["uid"] : "",
  };
}

const LABEL = "generate.kyverno.io/";

function labelsOf(o: JsonObject | null | undefined): Record<string, string> {
  const meta = o !== null && o !== undefined && isObject(o["metadata"]) ? o["metadata"] : {};
  const labels = isObject(meta["labels"]) ? meta["labels"] : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}

function ruleNamed(policies: readonly CompiledPolicy[], key: string, rule: string): JsonObject | undefined {
  const policy = policies.find((p) => policyKey(p) === key);
  const generate = (policy === undefined ? [] : kyvernoCompiledRules(policy)).find((r) => r.name === rule)?.rule
    .generate;
  return isObject(generate) ? generate : undefined;
}

/** An object generated for a synchronized rule, changed or deleted by someone else: its trigger is run again. */
function downstreamWork(request: AdmissionRequestJson, policies: readonly CompiledPolicy[]): GenerateWork[] {
  if (request.operation !== "UPDATE" && request.operation !== "DELETE") return [];
  const labels = labelsOf(request.operation === "DELETE" ? request.oldObject : request.object);
  const name = labels[`${LABEL}policy-name`];
  const rule = labels[`${LABEL}rule-name`];
  const uid = labels[`${LABEL}trigger-uid`];
  if (name === undefined || rule === undefined || uid === undefined || uid === "") return [];
  const ns = labels[`${LABEL}policy-namespace`] ?? "";
  const key = ns === "" ? name : `${ns}/${name}`;
  if (ruleNamed(policies, key, rule)?.["synchronize"] !== true) return [];
  const group = labels[`${LABEL}trigger-group`] ?? "";
  const version = labels[`${LABEL}trigger-version`] ?? "";
  return [
    {
      policy: key,
      rules: [{ rule, synchronize: true, deleteDownstream: false }],
      trigger: {
        apiVersion: group === "" ? version : `${group}/${version}`,
        kind: labels[`${LABEL}trigger-kind`] ?? "",
        namespace: labels[`${LABEL}trigger-namespace`] ?? "",
        name: "",
        uid,
      },
      operation: "UPDATE",
      userInfo: request.userInfo as unknown as JsonObject,
      admissionRequest: {},
    },
  ];
}

/** Whether a rule's clone or cloneList names `object` as its source (literal names only). */
function clones(generate: JsonObject, object: JsonObject): boolean {
  const ns = resourceNamespace(object);
  const clone = isObject(generate["clone"]) ? generate["clone"] : undefined;
  if (clone !== undefined)
    return (
      clone["namespace"] === ns && clone["name"] === resourceName(object) && generate["kind"] === resourceKind(object)
    );
  const list = isObject(generate["cloneList"]) ? generate["cloneList"] : undefined;
  if (list === undefined || list["namespace"] !== ns || !Array.isArray(list["kinds"])) return false;
  return list["kinds"].some(
    (k) => typeof k === "string" && (k === resourceKind(object) || k.endsWith(`/${resourceKind(object)}`)),
  );
}

/** An update of a synchronized rule's clone source: the controller runs each of its triggers again. */
function sourceWork(request: AdmissionRequestJson, policies: readonly CompiledPolicy[]): GenerateWork[] {
  if (request.operation !== "UPDATE" || !isObject(request.object)) return [];
  const object = request.object;
  if (labelsOf(object)[`${LABEL}trigger-uid`] !== undefined) return [];
  const out: GenerateWork[] = [];
  for (const policy of policies)
    for (const compiled of kyvernoCompiledRules(policy)) {
      const generate = compiled.rule.generate;
      if (!isObject(generate) || generate["synchronize"] !== true || !clones(generate, object)) continue;
      out.push({
        policy: policyKey(policy),
        sourceChanged: true,
        rules: [{ rule: compiled.name, synchronize: true, deleteDownstream: false }],
        trigger: triggerSpec(object, request),
        operation: "UPDATE",
        userInfo: request.userInfo as unknown as JsonObject,
        admissionRequest: {},
      });
    }
  return out;
}

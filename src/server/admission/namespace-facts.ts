/**
 * A namespace the cluster facts do not know has unknown labels. A rule that selects by namespace
 * labels (a namespaceSelector in match or exclude, or in a failure-action override) cannot be
 * evaluated for a request in such a namespace: evaluating it with no labels would quietly skip a
 * rule meant to apply (a silent pass). Such a rule answers as an `error` naming the namespace and
 * the field instead, so the review is decided by the policy's failurePolicy.
 *
 * `kubernetes.io/metadata.name` is known for every namespace (the API server sets it), so a
 * selector on that label alone needs no facts. A rule whose kinds cannot include the request's is
 * evaluated as usual: it would not match whatever the labels.
 */
import { isObject, type JsonValue } from "../../engine/api/json.js";
import { resourceKind } from "../../engine/api/resource.js";
import type { RuleResult, RuleType } from "../../engine/api/rule-result.js";
import type { PolicyResponse } from "../../engine/pipeline/types.js";
import type { CompiledPolicy, CompiledRule } from "../../engine/policy/compiled-policy.js";
import type { AdmissionSubject } from "./build-request.js";

const NAME_LABEL = "kubernetes.io/metadata.name";

/** Per policy: each rule that needs namespace labels, with the field that makes it need them. */
const needsCache = new WeakMap<CompiledPolicy, ReadonlyMap<CompiledRule, string>>();

export function rulesNeedingLabels(policy: CompiledPolicy): ReadonlyMap<CompiledRule, string> {
  let needs = needsCache.get(policy);
  if (needs === undefined) {
    needs = findNeeds(policy);
    needsCache.set(policy, needs);
  }
  return needs;
}

/**
 * `run` evaluates a policy (the engine's validate or mutate); for a request in a namespace the facts
 * do not know, the rules that need its labels are left out of the run and answer as errors.
 */
export function withNamespaceFacts(policy: CompiledPolicy, subject: AdmissionSubject, type: RuleType, run: (policy: CompiledPolicy) => PolicyResponse): PolicyResponse {
  const namespace = subject.unknownNamespace;
  if (namespace === undefined) return run(policy);
  const needs = rulesNeedingLabels(policy);
  if (needs.size === 0) return run(policy);
  const request = subject.engineRequest;
  const matched = request.operation === "DELETE" ? (request.oldResource ?? request.resource) : request.resource;
  const kind = resourceKind(matched);
  const relevant = (r: CompiledRule): boolean => (type === "Mutation" ? r.rule.mutate !== undefined : r.rule.validate !== undefined);
  const blind = policy.rules.filter((r) => needs.has(r) && relevant(r) && (r.matcher.kinds === undefined || r.matcher.kinds.includes(kind)));
  if (blind.length === 0) return run(policy);
  const rest = policy.rules.filter((r) => !blind.includes(r));
  const base = rest.some(relevant) ? run({ ...policy, rules: rest }) : { policy, resource: matched, rules: [] };
  const errors = blind.map((r): RuleResult => ({ rule: r.name, type, status: "error", message: unknownNamespaceMessage(namespace, r.name, needs.get(r) ?? "namespaceSelector") }));
  return { ...base, policy, rules: [...base.rules, ...errors] };
}

function unknownNamespaceMessage(namespace: string, rule: string, field: string): string {
  return `bylaw: namespace ${JSON.stringify(namespace)} is not in the cluster facts, so its labels are unknown, and rule ${rule} selects by namespace labels (${field}); add the namespace and its labels to the ClusterFacts file (--cluster-facts)`;
}

function findNeeds(policy: CompiledPolicy): Map<CompiledRule, string> {
  const needs = new Map<CompiledRule, string>();
  const spec = policy.document.spec;
  const specOverride = overrideNeed(spec.validationFailureActionOverrides as JsonValue | undefined, "spec.validationFailureActionOverrides");
  for (const compiled of policy.rules) {
    const rule = compiled.rule;
    const field =
      selectorNeed(rule.match as JsonValue | undefined, "match") ??
      selectorNeed(rule.exclude as JsonValue | undefined, "exclude") ??
      (rule.validate !== undefined ? (overrideNeed(rule.validate.failureActionOverrides as JsonValue | undefined, "validate.failureActionOverrides") ?? specOverride) : undefined);
    if (field !== undefined) needs.set(compiled, field);
  }
  return needs;
}

function overrideNeed(overrides: JsonValue | undefined, path: string): string | undefined {
  if (!Array.isArray(overrides)) return undefined;
  for (let i = 0; i < overrides.length; i++) {
    const o = overrides[i];
    if (isObject(o) && needsLabels(o["namespaceSelector"])) return `${path}[${i}].namespaceSelector`;
  }
  return undefined;
}

/** The path of the first namespaceSelector under a match/exclude block that reads labels other than the name label. */
function selectorNeed(node: JsonValue | undefined, path: string): string | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = selectorNeed(node[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (key === "namespaceSelector") {
      if (needsLabels(value)) return `${path}.namespaceSelector`;
    } else if (typeof value === "object" && value !== null) {
      const found = selectorNeed(value, `${path}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Whether a label selector reads any label but `kubernetes.io/metadata.name`. */
function needsLabels(selector: JsonValue | undefined): boolean {
  if (!isObject(selector)) return false;
  const labels = selector["matchLabels"];
  if (isObject(labels) && Object.keys(labels).some((k) => k !== NAME_LABEL)) return true;
  const expressions = selector["matchExpressions"];
  return Array.isArray(expressions) && expressions.some((e) => !isObject(e) || e["key"] !== NAME_LABEL);
}

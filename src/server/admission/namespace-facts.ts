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
import {
  type CompiledPolicy,
  type CompiledRule,
  type PolicyResponse,
  requestSubject,
  resourceKind,
  type RuleResult,
  type RuleType,
} from "../../engine/index.js";
import type { AdmissionSubject } from "./build-request.js";

/**
 * `run` evaluates a policy (the engine's validate or mutate); for a request in a namespace the facts
 * do not know, the rules that need its labels are left out of the run and answer as errors.
 */
export function withNamespaceFacts(
  policy: CompiledPolicy,
  subject: Pick<AdmissionSubject, "unknownNamespace" | "engineRequest">,
  type: RuleType,
  run: (policy: CompiledPolicy) => PolicyResponse,
): PolicyResponse {
  const namespace = subject.unknownNamespace;
  if (namespace === undefined) return run(policy);
  if (!policy.rules.some(readsLabels)) return run(policy);
  const matched = requestSubject(subject.engineRequest);
  const kind = resourceKind(matched);
  const relevant = (r: CompiledRule): boolean =>
    type === "Mutation" ? r.rule.mutate !== undefined : r.rule.validate !== undefined;
  const blind = policy.rules.filter(
    (r) => readsLabels(r) && relevant(r) && (r.matcher.kinds === undefined || r.matcher.kinds.includes(kind)),
  );
  if (blind.length === 0) return run(policy);
  const rest = policy.rules.filter((r) => !blind.includes(r));
  const base = rest.some(relevant) ? run({ ...policy, rules: rest }) : { policy, resource: matched, rules: [] };
  const errors = blind.map((r): RuleResult => ({
    rule: r.name,
    type,
    status: "error",
    message: unknownNamespaceMessage(namespace, r.name, r.namespaceLabels ?? "namespaceSelector"),
  }));
  return { ...base, policy, rules: [...base.rules, ...errors] };
}

function unknownNamespaceMessage(namespace: string, rule: string, field: string): string {
  return `bylaw: namespace ${JSON.stringify(namespace)} is not in the cluster facts, so its labels are unknown, and rule ${rule} selects by namespace labels (${field}); add the namespace and its labels to the ClusterFacts file (--cluster-facts)`;
}

function readsLabels(rule: CompiledRule): boolean {
  return rule.namespaceLabels !== undefined;
}

/**
 * A namespace the cluster facts do not know has unknown labels. A policy's matcher that selects by
 * namespace labels cannot be decided for a request in such a namespace: evaluating it with no labels
 * would quietly skip a policy meant to apply (a silent pass). The policy's head says which
 * (engine `namespaceLabelsNeeded`, the same question for every kind): a kyverno.io rule selecting by
 * them (a namespaceSelector in match or exclude, or in a failure-action override) answers as an
 * `error` naming the namespace and the field while the policy's other rules run; a CEL kind whose
 * matchConstraints (or binding's matchResources) are left to their namespaceSelector answers one
 * such error and does not run. The review is then decided by the policy's failurePolicy.
 *
 * `kubernetes.io/metadata.name` is known for every namespace (the API server sets it), so a
 * selector on that label alone needs no facts. A matcher that cannot match the request's kind is
 * evaluated as usual: it would not match whatever the labels.
 */
import {
  type CompiledPolicy,
  namespaceLabelsNeeded,
  type PolicyResponse,
  type PreparedRequest,
  requestSubject,
  type RuleResult,
  type RuleType,
} from "../../engine/index.js";
import type { AdmissionSubject } from "./build-request.js";

/** A review as the namespace facts see it: its subject, and its request prepared once for every policy. */
interface FactsReview {
  readonly subject: Pick<AdmissionSubject, "unknownNamespace" | "engineRequest">;
  /** The subject's request prepared (what the candidate index asked): the rules' gates are read from it. */
  readonly prepared: PreparedRequest;
}

/**
 * `run` evaluates a policy (the engine's validate or mutate); for a request in a namespace the facts
 * do not know, what needs its labels is left out of the run and answers as errors.
 */
export function withNamespaceFacts(
  policy: CompiledPolicy,
  review: FactsReview,
  type: RuleType,
  run: (policy: CompiledPolicy) => PolicyResponse,
): PolicyResponse {
  const subject = review.subject;
  const namespace = subject.unknownNamespace;
  if (namespace === undefined) return run(policy);
  const need = namespaceLabelsNeeded(policy, review.prepared, type);
  if (need.scope === "none") return run(policy);
  const error = (n: { readonly name: string; readonly field: string }, what: string): RuleResult => ({
    rule: n.name,
    type,
    status: "error",
    message: unknownNamespaceMessage(namespace, what, n.field),
  });
  if (need.scope === "policy")
    return {
      policy,
      resource: requestSubject(subject.engineRequest),
      rules: [error(need.need, `policy ${policy.name}`)],
    };
  const base = need.restRuns
    ? run(policy.language === "kyverno" ? { ...policy, rules: need.rest } : policy)
    : { policy, resource: requestSubject(subject.engineRequest), rules: [] };
  const errors = need.needs.map((n) => error(n, `rule ${n.name}`));
  return { ...base, policy, rules: [...base.rules, ...errors] };
}

function unknownNamespaceMessage(namespace: string, what: string, field: string): string {
  return `bylaw: namespace ${JSON.stringify(namespace)} is not in the cluster facts, so its labels are unknown, and ${what} selects by namespace labels (${field}); add the namespace and its labels to the ClusterFacts file (--cluster-facts)`;
}

/**
 * What of a policy mutates existing resources, asked by the webhook (which triggers bring work) and
 * the background controller (what it runs for that work), whatever the kind: a kyverno.io policy's
 * mutate rules with `targets`, a MutatingPolicy with `spec.evaluation.mutateExisting.enabled`
 * (its results are named "", as Kyverno names a MutatingPolicy's).
 */
import { isMutateExisting } from "../pipeline/mutate-policy.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";

/** The names of the policy's results that mutate existing resources; none when it mutates none. */
export function mutateExistingRuleNames(policy: CompiledPolicy): string[] {
  if (policy.language === "kyverno") return policy.rules.filter(isMutateExisting).map((r) => r.name);
  if (policy.language === "mutating" && policy.mutating.some((b) => b.existing !== undefined)) return [""];
  return [];
}

/**
 * The policy as the background controller runs it for a trigger: a MutatingPolicy's trigger is
 * matched but not patched, only its targets are (Kyverno's `EvaluateTarget`); a kyverno.io policy
 * is run whole and its mutate-existing rules' results are read by name.
 */
export function mutateExistingView(policy: CompiledPolicy): CompiledPolicy {
  if (policy.language !== "mutating" || mutateExistingRuleNames(policy).length === 0) return policy;
  return { ...policy, mutating: policy.mutating.map((b) => ({ ...b, targetsOnly: true })) };
}

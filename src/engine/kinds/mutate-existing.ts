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

/**
 * A MutatingPolicy as the background controller runs it over its existing targets when the policy
 * appears or changes (Kyverno 1.19's policy controller makes a `cel-mutate` UpdateRequest with no
 * trigger, and its processor lists the targets): each target is the request's object, an UPDATE,
 * decided by the target constraints and `targetMatchConditions` (not the trigger's), then patched.
 * The resource rules to list are each body's `existing.constraints`. Bodies without mutateExisting,
 * and those whose targets an expression computes from a trigger, take no part; undefined when none does.
 */
export function mutateExistingScanView(policy: CompiledPolicy): CompiledPolicy | undefined {
  if (policy.language !== "mutating") return undefined;
  const bodies = policy.mutating.flatMap((body) => {
    const { existing, ...rest } = body;
    if (existing === undefined || existing.expression !== undefined) return [];
    return [{ ...rest, constraints: existing.constraints, matchConditions: existing.matchConditions }];
  });
  return bodies.length === 0 ? undefined : { ...policy, mutating: bodies };
}

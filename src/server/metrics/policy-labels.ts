/**
 * How Kyverno labels a policy and a rule in its metrics (pkg/metrics parsers): the policy's type,
 * background mode, namespace ("-" for a ClusterPolicy) and validation mode, and each rule's type.
 */
import { compiledAction, type CompiledPolicy, type Rule } from "../../engine/index.js";

type ValidationMode = "enforce" | "audit";
type RuleType = "validate" | "mutate" | "generate" | "imageVerify" | "-";

export interface PolicyLabels {
  readonly validationMode: ValidationMode;
  readonly type: "cluster" | "namespaced";
  readonly background: "true" | "false";
  /** "-" for a ClusterPolicy. */
  readonly namespace: string;
  readonly name: string;
}

/**
 * The `policy_validation_mode` label. Kyverno reads only `spec.validationFailureAction` here
 * (Enforce, either case, is "enforce"; anything else, including unset, is "audit"): a policy
 * that enforces through rule-level `failureAction` is still labelled "audit", as in Kyverno.
 */
export function policyValidationMode(policy: CompiledPolicy): ValidationMode {
  // The other languages decide their action at compile time (compiledAction).
  const action = policy.language === "kyverno" ? policy.document.spec.validationFailureAction : compiledAction(policy);
  return action === "Enforce" || action === "enforce" ? "enforce" : "audit";
}

export function policyLabels(policy: CompiledPolicy): PolicyLabels {
  const cluster = policy.namespace === "";
  return {
    validationMode: policyValidationMode(policy),
    type: cluster ? "cluster" : "namespaced",
    background: policy.background ? "true" : "false",
    namespace: cluster ? "-" : policy.namespace,
    name: policy.name,
  };
}

/** A rule's `rule_type`: the first non-empty of validate, mutate, generate, verifyImages; "-" otherwise. */
export function ruleType(rule: Rule): RuleType {
  if (nonEmpty(rule.validate)) return "validate";
  if (nonEmpty(rule.mutate)) return "mutate";
  if (nonEmpty(rule.generate)) return "generate";
  if ((rule.verifyImages?.length ?? 0) > 0) return "imageVerify";
  return "-";
}

function nonEmpty(v: object | undefined): boolean {
  return v !== undefined && Object.values(v).some((x) => x !== undefined);
}

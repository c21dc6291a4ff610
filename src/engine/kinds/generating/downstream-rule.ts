/**
 * The `generate.kyverno.io/rule-name` label on what one rule of a policy generated: the rule's name,
 * or, for a GeneratingPolicy (whose results are named by the policy), its unnamed body's label.
 * The generate controller finds a rule's downstream objects by it.
 */
import { GENERATING_DOWNSTREAM_RULE } from "../../cel/generating-policy/index.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";

export function downstreamRuleLabel(policy: CompiledPolicy | undefined, rule: string): string {
  return policy?.language === "generating" ? GENERATING_DOWNSTREAM_RULE : rule;
}

/**
 * verifyImages rules in the pipeline: their entries read for the request (variables substituted),
 * then the validate side (pipeline/validate-policy.ts) or the mutate side (pipeline/mutate-policy.ts)
 * of engine/verify-images. A DELETE has no images to verify (Kyverno registers no handler for it).
 */
import type { Resource } from "../api/resource.js";
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import type { SubstitutionScope } from "../variables/index.js";
import { imageRuleEntries, mutateImages, validateImages, type ImageRuleInput } from "../verify-images/index.js";
import type { RuleRun } from "./rule-scope.js";

function input(run: RuleRun, vars: SubstitutionScope, resource: Resource): ImageRuleInput | RuleResult {
  const entries = imageRuleEntries(run.rule.rule, vars);
  if (!entries.ok) return ruleResult(run.rule.name, "ImageVerify", "error", entries.error.message);
  const old = run.request.operation === "UPDATE" ? run.request.request.oldResource : undefined;
  return { policy: run.policy.name, rule: run.rule.name, entries: entries.value, resource, ports: run.env.ports, ...(old !== undefined ? { oldResource: old } : {}) };
}

export function validateImageRule(run: RuleRun, vars: SubstitutionScope): RuleResult | undefined {
  if (run.request.operation === "DELETE") return undefined;
  const i = input(run, vars, run.request.subject);
  return "entries" in i ? validateImages(i) : i;
}

export function mutateImageRule(run: RuleRun, vars: SubstitutionScope, resource: Resource): { results: readonly RuleResult[]; resource: Resource } {
  const i = input(run, vars, resource);
  return "entries" in i ? mutateImages(i) : { results: [i], resource };
}

/**
 * A validate.manifests rule once matched and in scope (Kyverno's validateManifestHandler): no result
 * on DELETE, a pass for a dry-run admission request, otherwise the signed-manifest check. A
 * manifests block holding `{{ }}` variables is substituted, then read, at evaluation.
 */
import { isObject } from "../api/json.js";
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import {
  compileManifests,
  verifyManifests,
  type CompiledManifests,
  type CompiledManifestsRule,
} from "../manifests/index.js";
import { substituteAll, type SubstitutionScope } from "../variables/index.js";
import type { RuleRun } from "./rule-scope.js";

export function manifestsRule(
  run: RuleRun,
  manifests: CompiledManifestsRule,
  vars: SubstitutionScope,
): RuleResult | undefined {
  const name = run.rule.name;
  if (run.request.operation === "DELETE") return undefined;
  const request = isObject(vars.data["request"]) ? vars.data["request"] : {};
  if (request["dryRun"] === true) return ruleResult(name, "Validation", "pass", "allowed because of DryRun request");
  let compiled: CompiledManifests;
  if ("compiled" in manifests) compiled = manifests.compiled;
  else {
    const substituted = substituteAll(manifests.template, vars);
    if (!substituted.ok)
      return ruleResult(name, "Validation", "error", `rule ${name}: validate.manifests: ${substituted.error.message}`);
    const read = compileManifests(substituted.value, manifests.path);
    if (!read.ok)
      return ruleResult(
        name,
        "Validation",
        "error",
        `rule ${name}: ${read.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
      );
    compiled = read.value;
  }
  if (compiled.unsupported !== undefined)
    return ruleResult(name, "Validation", "error", `rule ${name}: ${compiled.unsupported}; the rule was not evaluated`);
  const object = run.request.subject;
  const outcome = verifyManifests(compiled, object, run.env.ports.signatures);
  return ruleResult(name, "Validation", outcome.status, outcome.message);
}

/**
 * The pipeline for generate rules (Kyverno `pkg/background/generate/*`): match → context → preconditions → substitute the
 * generate block (or each generate.foreach element's pattern) → the resources it generates. Nothing
 * is written here: the response says what should exist; the CLI prints it, a controller applies it.
 */
import type { JsonObject } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import { enterScope } from "../context/enter-scope.js";
import { evaluateList, withElement } from "../foreach/evaluate-list.js";
import type { GeneratedResource } from "../api/generated-resource.js";
import { generateResources, type ExistingResources } from "../generate/index.js";
import type { CompiledPolicy, CompiledRule, KyvernoCompiledPolicy } from "../policy/compiled-policy.js";
import { noGeneration } from "../kinds/no-phase.js";
import { substituteAll, type SubstitutionScope } from "../variables/index.js";
import { matchRequestFor, ruleMatches } from "./match-rule.js";
import type { PreparedRequest } from "./prepared-request.js";
import { policyMatchConditions } from "./policy-match-conditions.js";
import { ruleScope } from "./rule-scope.js";
import type { EngineEnv, PolicyResponse } from "./types.js";

export function generatePolicy(
  policy: CompiledPolicy,
  request: PreparedRequest,
  env: EngineEnv,
  existing: ExistingResources,
): PolicyResponse {
  if (policy.language !== "kyverno") return noGeneration(policy, request);
  const base = request.base(policy.usesImages);
  const results: RuleResult[] = [];
  const trigger = request.request.resource;
  if (request.operation === "DELETE") return { policy, resource: request.subject, rules: results };
  const conditions = policyMatchConditions(policy, request, base);
  if (conditions.kind === "no-match") return { policy, resource: trigger, rules: results };
  for (const compiled of policy.rules) {
    const generate = compiled.rule.generate;
    if (generate === undefined) continue;
    if (!ruleMatches(compiled, matchRequestFor(policy, trigger, request))) continue;
    if (conditions.kind === "error") {
      results.push(ruleResult(compiled.name, "Generation", "error", conditions.message));
      continue;
    }
    const scope = ruleScope({ policy, rule: compiled, type: "Generation", env, request, base });
    if (!scope.ok) {
      results.push(scope.result);
      continue;
    }
    if (compiled.unsupported !== undefined) {
      results.push(ruleResult(compiled.name, "Generation", "error", compiled.unsupported));
      continue;
    }
    results.push(runGenerate(policy, compiled, { generate, vars: scope.vars, trigger, existing }));
  }
  return { policy, resource: trigger, rules: results };
}

interface GenerateInput {
  /** The rule's generate block. */
  readonly generate: JsonObject;
  readonly vars: SubstitutionScope;
  readonly trigger: Resource;
  readonly existing: ExistingResources;
}

/**
 * Kyverno's texts: a passing rule has no message (pkg/engine/background.go filterRule: RulePass with
 * ""), what it generated rides beside it; a substitution error is handed over as it is, without a
 * prefix (pkg/background/generate generate()/generateForeach()).
 */
function runGenerate(policy: KyvernoCompiledPolicy, compiled: CompiledRule, input: GenerateInput): RuleResult {
  const { generate, vars, trigger, existing } = input;
  const name = compiled.name;
  const fail = (message: string): RuleResult => ruleResult(name, "Generation", "error", message);
  const generateOne = (block: JsonObject, scope: SubstitutionScope, basePath: string): GeneratedResource[] | string => {
    const substituted = substituteAll(block, { ...scope, basePath });
    if (!substituted.ok) return substituted.error.message;
    if (!isObject(substituted.value)) return `rule ${name}: generate must be a mapping`;
    const out = generateResources({
      // Only the kyverno.io kinds generate: a namespaced one is a Policy.
      policy: {
        kind: policy.namespace !== "" ? "Policy" : "ClusterPolicy",
        name: policy.name,
        namespace: policy.namespace,
      },
      rule: name,
      generate: substituted.value,
      trigger,
      existing,
    });
    return out.ok ? [...out.value] : `rule ${name}: ${out.error.message}`;
  };
  const generated: GeneratedResource[] = [];
  const foreach = generate["foreach"];
  if (Array.isArray(foreach)) {
    const shared: JsonObject = {};
    for (const key of ["synchronize", "orphanDownstreamOnPolicyDelete"])
      if (generate[key] !== undefined) shared[key] = generate[key] ?? null;
    for (const [i, fe] of foreach.entries()) {
      if (!isObject(fe)) continue;
      const listExpr = typeof fe["list"] === "string" ? fe["list"] : "";
      const elements = evaluateList(listExpr, vars);
      if (elements.kind === "error") return fail(`failed to evaluate list ${listExpr}: ${elements.message}`);
      if (elements.kind === "missing") continue;
      for (const [index, element] of elements.items.entries()) {
        const entered = enterScope(withElement(vars, element, index, 0), fe["context"], fe["preconditions"]);
        if (entered.kind === "error") return fail(entered.message);
        if (entered.kind === "skip") continue;
        const scope = entered.vars;
        const pattern: JsonObject = { ...shared };
        for (const [k, v] of Object.entries(fe))
          if (k !== "list" && k !== "context" && k !== "preconditions") pattern[k] = v;
        const out = generateOne(pattern, scope, `/generate/foreach/${i}`);
        if (typeof out === "string") return fail(out);
        generated.push(...out);
      }
    }
    if (generated.length === 0)
      return ruleResult(
        name,
        "Generation",
        "skip",
        "no resources to generate: every foreach element was skipped or the lists were empty",
      );
  } else {
    const out = generateOne(generate, vars, "/generate");
    if (typeof out === "string") return fail(out);
    generated.push(...out);
    if (generated.length === 0)
      return ruleResult(
        name,
        "Generation",
        "skip",
        "nothing to generate: the clone source is the target itself or the clone list matched nothing",
      );
  }
  return { ...ruleResult(name, "Generation", "pass", ""), generated };
}

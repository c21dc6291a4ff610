/**
 * The steps every rule type shares once it matched (architecture "Flow of one rule"): per-rule CLI
 * values, the rule's context entries, then its preconditions. What is left is the variable scope the
 * rule's handler substitutes with; a context or precondition problem ends the rule with its result.
 */
import type { JsonObject } from "../api/json.js";
import type { Operation } from "../api/resource.js";
import type { RuleResult, RuleStatus, RuleType } from "../api/rule-result.js";
import { enterScope } from "../context/enter-scope.js";
import { setDotted } from "../context/request-context.js";
import type { CompiledPolicy, CompiledRule } from "../policy/compiled-policy.js";
import type { SubstitutionScope } from "../variables/index.js";
import type { EngineEnv, EngineRequest } from "./types.js";

export type RuleScope = { readonly ok: true; readonly vars: SubstitutionScope } | { readonly ok: false; readonly result: RuleResult };

export function ruleResult(rule: string, type: RuleType, status: RuleStatus, message: string, path?: string): RuleResult {
  return path === undefined ? { rule, type, status, message } : { rule, type, status, message, path };
}

export function ruleScope(policy: CompiledPolicy, compiled: CompiledRule, base: JsonObject, operation: Operation, env: EngineEnv, request: EngineRequest, type: RuleType): RuleScope {
  const rule = compiled.rule;
  const name = compiled.name;
  let data = base;
  const ruleVars = request.ruleVariables?.(policy.name, name);
  for (const [k, v] of Object.entries(ruleVars ?? {})) data = setDotted(data, k, v);
  const vars: SubstitutionScope = { data, jmespath: env.jmespath, fnctx: { ports: env.ports }, cache: policy.cache, operation };
  const entered = enterScope(vars, rule.context, rule.preconditions);
  if (entered.kind !== "ready") return { ok: false, result: ruleResult(name, type, entered.kind, entered.message) };
  return { ok: true, vars: entered.vars };
}

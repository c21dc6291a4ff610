/**
 * The steps every rule type shares once it matched (architecture "Flow of one rule"): per-rule CLI
 * values, the rule's context entries, then its preconditions. What is left is the variable scope the
 * rule's handler substitutes with; a context or precondition problem ends the rule with its result.
 */
import type { JsonObject } from "../api/json.js";
import type { Operation } from "../api/resource.js";
import type { RuleResult, RuleStatus, RuleType } from "../api/rule-result.js";
import { evaluateConditions } from "../conditions/index.js";
import { loadContextEntries } from "../context/load-entries.js";
import { setDotted } from "../context/request-context.js";
import type { CompiledPolicy, CompiledRule } from "../policy/compiled-policy.js";
import { substituteAll, type SubstitutionScope } from "../variables/index.js";
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
  let vars: SubstitutionScope = { data, jmespath: env.jmespath, fnctx: { ports: env.ports }, cache: policy.cache, operation };
  if (rule.context !== undefined && rule.context.length > 0) {
    const loaded = loadContextEntries(rule.context, vars);
    if (!loaded.ok) return { ok: false, result: ruleResult(name, type, "error", `failed to load context: ${loaded.error.message}`) };
    vars = { ...vars, data: loaded.value };
  }
  if (rule.preconditions !== undefined) {
    const pre = evaluateConditions(rule.preconditions, (v) => substituteAll(v, vars));
    if (!pre.ok) return { ok: false, result: ruleResult(name, type, "error", `failed to evaluate preconditions: ${pre.error.message}`) };
    if (!pre.value.met) {
      const detail = pre.value.message;
      return { ok: false, result: ruleResult(name, type, "skip", detail === "" ? "preconditions not met" : `preconditions not met; ${detail}`) };
    }
  }
  return { ok: true, vars };
}

/**
 * The pipeline for validate rules, per rule: match/exclude → context entries → preconditions →
 * variables → the validate handler → a RuleResult with a message (spec: architecture "Flow of one rule").
 */
import type { JsonObject } from "../api/json.js";
import { isStackOverflow, MAX_DOCUMENT_DEPTH } from "../api/json-depth.js";
import { resourceNamespace } from "../api/resource.js";
import { effectiveAction } from "./failure-action.js";
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import { setDotted } from "../context/request-context.js";
import { requestBase } from "./request-base.js";
import { isValidatePhaseRule, type CompiledPolicy, type CompiledRule } from "../policy/compiled-policy.js";
import { runValidation } from "../validate/run-validation.js";
import { podSecurityExceptionPlan, type CompiledException } from "../exceptions/index.js";
import { evaluatePodSecurity, podSecurityMessage, podSecurityProperties } from "../pod-security/index.js";
import type { SubstitutionScope } from "../variables/index.js";
import { ruleScope } from "./rule-scope.js";
import { matchContext, matchRequestFor, ruleMatchesOnce } from "./match-rule.js";
import type { EngineEnv, EngineRequest, PolicyResponse } from "./types.js";

export function validatePolicy(policy: CompiledPolicy, request: EngineRequest, env: EngineEnv): PolicyResponse {
  const subject = request.operation === "DELETE" && request.oldResource ? request.oldResource : request.resource;
  const { base, operation, tooDeep, matchRequests } = requestBase(request, policy.usesImages);
  // Made on the first result, with room for one: most policies give one result per request.
  let results: RuleResult[] | undefined;
  // Every policy of one namespace (ClusterPolicies: "") matches against the same request.
  let matchCtx = matchRequests.get(policy.namespace);
  if (matchCtx === undefined) {
    matchCtx = matchContext(matchRequestFor(policy, subject, operation, request));
    matchRequests.set(policy.namespace, matchCtx);
  }
  for (const compiled of policy.rules) {
    if (!isValidatePhaseRule(compiled)) continue;
    if (!ruleMatchesOnce(compiled, matchCtx)) continue;
    if (tooDeep) {
      results = add(results, { rule: compiled.name, type: "Validation", status: "error", message: `the resource is nested deeper than ${MAX_DOCUMENT_DEPTH} levels; it was not evaluated` });
      continue;
    }
    const result = evaluateGuarded(policy, compiled, base, operation, env, request);
    if (result === undefined) continue;
    results = add(results, result);
    if (policy.applyRules === "One" && (result.status === "pass" || result.status === "fail")) break;
  }
  return { policy, resource: subject, rules: results ?? NO_RESULTS };
}

const NO_RESULTS: readonly RuleResult[] = Object.freeze([]);

function add(results: RuleResult[] | undefined, result: RuleResult): RuleResult[] {
  if (results === undefined) return [result];
  results.push(result);
  return results;
}

/**
 * allowExistingViolations (default true): on an UPDATE under Enforce, a failure that the old object
 * already had is not held against the request. The old object is evaluated as if it were created.
 */
function preExistingViolation(policy: CompiledPolicy, compiled: CompiledRule, vars: SubstitutionScope, operation: EngineRequest["operation"], request: EngineRequest): boolean {
  const old = request.oldResource;
  const validate = compiled.rule.validate;
  if (operation !== "UPDATE" || old === undefined || validate === undefined || validate.allowExistingViolations === false) return false;
  if (effectiveAction(policy, compiled.name, resourceNamespace(old), request.namespaceLabels) !== "Enforce") return false;
  const oldData = setDotted(setDotted(vars.data, "request.object", old), "request.operation", "CREATE");
  const previous = runValidation(validate, validate.message, { ruleName: compiled.name, target: old, vars: { ...vars, data: oldData, operation: "CREATE" }, patterns: policy.patterns }, 0);
  return previous?.status === "fail";
}

/** A rule whose evaluation exhausts the stack (hostile nesting or recursion) is an error, never a crash. */
function evaluateGuarded(policy: CompiledPolicy, compiled: CompiledRule, base: JsonObject, operation: EngineRequest["operation"], env: EngineEnv, request: EngineRequest): RuleResult | undefined {
  try {
    // A rule that needs no scope is answered without one; PolicyExceptions are checked the full way.
    if (compiled.fastPass !== undefined && (request.exceptions === undefined || request.exceptions.length === 0)) {
      const answered = compiled.fastPass(operation === "DELETE" ? (request.oldResource ?? request.resource) : request.resource, operation);
      if (answered !== undefined) return answered;
    }
    return evaluateRule(policy, compiled, base, operation, env, request);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return { rule: compiled.name, type: "Validation", status: "error", message: `rule ${compiled.name}: evaluation exceeded the stack (input nested too deeply or recursive); not evaluated` };
  }
}

function evaluateRule(policy: CompiledPolicy, compiled: CompiledRule, base: JsonObject, operation: EngineRequest["operation"], env: EngineEnv, request: EngineRequest): RuleResult | undefined {
  const name = compiled.name;
  const type = compiled.rule.validate === undefined ? "ImageVerify" : "Validation";
  const scope = ruleScope(policy, compiled, base, operation, env, request, type);
  if (!scope.ok) return scope.result;
  // Matched, not excepted, preconditions met: a rule Bylaw cannot run answers with an error.
  if (compiled.unsupported !== undefined) return ruleResult(name, type, "error", compiled.unsupported);
  const validate = compiled.rule.validate;
  if (validate === undefined) return undefined;
  const vars = scope.vars;
  if (validate.podSecurity !== undefined) return podSecurityRule(compiled, operation === "DELETE" ? (request.oldResource ?? request.resource) : request.resource, scope.exceptions ?? []);
  const target = operation === "DELETE" ? (request.oldResource ?? request.resource) : request.resource;
  const passed = compiled.validatePass;
  const outcome = runValidation(validate, validate.message, { ruleName: name, target, vars, patterns: policy.patterns, passed }, 0);
  if (outcome === undefined) return undefined;
  if (passed !== undefined && outcome === passed.outcome) return passed.result;
  if (outcome.status === "fail" && preExistingViolation(policy, compiled, vars, operation, request)) {
    return ruleResult(name, "Validation", "skip", "skipping the rule evaluation as pre-existing violations are allowed");
  }
  return ruleResult(name, "Validation", outcome.status, outcome.message, outcome.path);
}

/**
 * validate.podSecurity (Kyverno's PSS handler). Matched exceptions without podSecurity entries skip
 * the rule; otherwise their entries are extra exclusions, and a pod that passes only thanks to them
 * is a skip naming the exceptions.
 */
function podSecurityRule(compiled: CompiledRule, resource: JsonObject, exceptions: readonly CompiledException[]): RuleResult {
  const name = compiled.name;
  const ps = compiled.podSecurity;
  if (ps === undefined) return ruleResult(name, "Validation", "error", `rule ${name}: validate.podSecurity did not compile`);
  const plan = podSecurityExceptionPlan(exceptions);
  if (plan.kind === "skip") return { ...ruleResult(name, "Validation", "skip", plan.message), exceptions: plan.exceptions.map((e) => e.key) };
  const outcome = evaluatePodSecurity(ps, resource, plan.kind === "exclude" ? plan.exclusions : undefined);
  if (outcome.error !== undefined) return ruleResult(name, "Validation", "error", outcome.error);
  const properties = podSecurityProperties(ps, outcome);
  if (outcome.allowed && plan.kind === "exclude" && outcome.exemptedByExtra) {
    return { ...ruleResult(name, "Validation", "skip", plan.skipMessage), exceptions: plan.exceptions.map((e) => e.key), properties };
  }
  return { ...ruleResult(name, "Validation", outcome.allowed ? "pass" : "fail", podSecurityMessage(name, ps, outcome)), properties };
}

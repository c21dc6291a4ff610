/**
 * The pipeline for validate rules, per rule: match/exclude → context entries → preconditions →
 * variables → the validate handler → a RuleResult with a message (spec: architecture "Flow of one rule").
 */
import { isStackOverflow, MAX_DOCUMENT_DEPTH } from "../api/json-depth.js";
import { resourceNamespace, type Resource } from "../api/resource.js";
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import { isValidatePhaseRule, type CompiledPolicy, type CompiledRule } from "../policy/compiled-policy.js";
import { runValidation } from "../validate/run-validation.js";
import type { SharedPatternOutcomes } from "../validate/fast-pass.js";
import { celRuleInput, evaluateCelRule, forPolicyKinds, type CelRuleInput } from "../cel/validate-rule/index.js";
import type { JsonObject } from "../api/json.js";
import { resolveParams } from "../cel/params/index.js";
import { podSecurityExceptionPlan, type CompiledException } from "../exceptions/index.js";
import { isCelException } from "../exceptions/cel/index.js";
import {
  type CheckMemo,
  evaluatePodSecurity,
  podSecurityMessage,
  podSecurityProperties,
} from "../pod-security/index.js";
import type { PreparedRequest } from "./prepared-request.js";
import { ruleScope, ruleStartData, startScope, type RuleRun } from "./rule-scope.js";
import { sharedConditionsOutcome } from "../context/shared-conditions.js";
import { manifestsRule } from "./manifests-rule.js";
import { ruleMatchesOnce } from "./match-rule.js";
import { policyMatchConditions } from "./policy-match-conditions.js";
import { validateImageRule } from "./image-verify-rule.js";
import { preExistingViolation } from "./pre-existing-violation.js";
import type { EngineEnv, PolicyResponse } from "./types.js";

export function validatePolicy(policy: CompiledPolicy, request: PreparedRequest, env: EngineEnv): PolicyResponse {
  if (policy.language !== "kyverno") return { policy, resource: request.subject, rules: NO_RESULTS };
  const base = request.base(policy.usesImages);
  const conditions = policyMatchConditions(policy, request, base);
  if (conditions.kind === "no-match") return { policy, resource: request.subject, rules: NO_RESULTS };
  const tooDeep = request.tooDeep;
  // A rule that needs no scope is answered without one (fastAnswer); kyverno.io PolicyExceptions are
  // checked the full way (policies.kyverno.io ones concern only the CEL kinds, which have no fast pass).
  const fastPassing = !request.derived(HAS_CLASSIC_EXCEPTIONS, () =>
    (request.request.exceptions ?? []).some((e) => !isCelException(e)),
  );
  // Made on the first result, with room for one: most policies give one result per request.
  let results: RuleResult[] | undefined;
  // Every policy of one namespace (ClusterPolicies: "") matches against the same request.
  const matchCtx = request.matchContext(policy);
  for (const compiled of policy.rules) {
    if (!isValidatePhaseRule(compiled)) continue;
    if (!ruleMatchesOnce(compiled, matchCtx)) continue;
    if (conditions.kind === "error") {
      results = add(results, {
        rule: compiled.name,
        type: compiled.rule.validate === undefined ? "ImageVerify" : "Validation",
        status: "error",
        message: conditions.message,
      });
      continue;
    }
    if (tooDeep) {
      results = add(results, {
        rule: compiled.name,
        type: "Validation",
        status: "error",
        message: `the resource is nested deeper than ${MAX_DOCUMENT_DEPTH} levels; it was not evaluated`,
      });
      continue;
    }
    const run: RuleRun = {
      policy,
      rule: compiled,
      type: compiled.rule.validate === undefined ? "ImageVerify" : "Validation",
      env,
      request,
      base,
    };
    const result =
      (fastPassing && request.operation !== "DELETE" ? fastAnswer(run) : undefined) ??
      (fastPassing && compiled.shareKey !== undefined ? sharedResult(run, compiled.shareKey) : evaluateGuarded(run));
    if (result === undefined) continue;
    results = add(results, result);
    if (policy.applyRules === "One" && (result.status === "pass" || result.status === "fail")) break;
  }
  return { policy, resource: request.subject, rules: results ?? NO_RESULTS };
}

const NO_RESULTS: readonly RuleResult[] = Object.freeze([]);
/** The key, in a PreparedRequest, of whether it carries kyverno.io PolicyExceptions. */
const HAS_CLASSIC_EXCEPTIONS: unique symbol = Symbol("kyverno.io exceptions");
/** The key of a request's CEL values in its PreparedRequest. */
const CEL_INPUT: unique symbol = Symbol("validate.cel input");

/**
 * The request's CEL values (`object`, `oldObject`, `request`, ...) from a rule's data: converted once
 * per request, whichever rule or CEL kind asks first; validate.cel rules and the CEL kinds share it.
 */
export function requestCelInput(request: PreparedRequest, data: JsonObject): CelRuleInput {
  return request.derived(CEL_INPUT, () => celRuleInput(request.request, data));
}

const CEL_POLICY_INPUT: unique symbol = Symbol("policies.kyverno.io input");

/** `requestCelInput` as the policies.kyverno.io kinds see it (input.ts `forPolicyKinds`), also made once per request. */
export function requestPolicyCelInput(request: PreparedRequest, data: JsonObject): CelRuleInput {
  return request.derived(CEL_POLICY_INPUT, () => forPolicyKinds(requestCelInput(request, data), request.request));
}

function add(results: RuleResult[] | undefined, result: RuleResult): RuleResult[] {
  if (results === undefined) return [result];
  results.push(result);
  return results;
}

/**
 * The rule's fast pass (validate/fast-pass.ts), for a request without PolicyExceptions: its result,
 * or undefined when the rule needs the full way (or has no fast pass). A rule with preconditions
 * takes it only once they are met.
 */
function fastAnswer(run: RuleRun): RuleResult | undefined {
  const compiled = run.rule;
  const fastPass = compiled.fastPass;
  if (fastPass === undefined) return undefined;
  try {
    const preconditions = compiled.rule.preconditions;
    if (preconditions !== undefined && preconditions !== null && !preconditionsMet(run, preconditions))
      return undefined;
    return fastPass(
      run.request.subject,
      run.request.operation,
      run.request.derived(PATTERN_OUTCOMES, newPatternOutcomes),
    );
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return stackExceeded(compiled.name);
  }
}

/**
 * Whether the rule's preconditions are met, run on the request's base context and shared with the
 * request's other rules (context/shared-conditions.ts). False whenever the rule's scope would read
 * anything else (the CLI's values for this rule): the full way then decides, and words a skip or an error.
 */
function preconditionsMet(run: RuleRun, preconditions: unknown): boolean {
  if (hasOwnValues(run)) return false;
  const shared = run.request.sharedConditions(run.base);
  if (shared === undefined) return false;
  const compiled = run.policy.cache.conditions(preconditions, "preconditions");
  const outcome = sharedConditionsOutcome(compiled, shared, () => startScope(run));
  return outcome.ok && outcome.value.met;
}

/**
 * The result of a rule that reads only the request and its own text (CompiledRule `shareKey`), for a
 * request without PolicyExceptions: computed once per request for every rule with the same key
 * (copies of a policy), and given again as the same object. Not for a rule the CLI gives values of
 * its own, which read data of their own.
 */
function sharedResult(run: RuleRun, key: string): RuleResult | undefined {
  const request = run.request;
  if (hasOwnValues(run)) return evaluateGuarded(run);
  // The two base contexts (with and without `images`) answer apart.
  const results = request.derived(run.policy.usesImages ? RESULTS_WITH_IMAGES : RESULTS, newSharedResults);
  const hit = results.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const result = evaluateGuarded(run);
  results.set(key, result ?? null);
  return result;
}

/** The rule starts from data of its own (the CLI's per-rule values), not the request's base context. */
function hasOwnValues(run: RuleRun): boolean {
  const request = run.request.request;
  if (request.ruleVariables === undefined && request.ruleForeachValues === undefined) return false;
  return ruleStartData(request, { policy: run.policy.name, rule: run.rule.name, base: run.base }) !== run.base;
}

/** Shared rule results by CompiledRule `shareKey`; null: the rule gave no result. */
type SharedResults = Map<string, RuleResult | null>;
const RESULTS = Symbol("shared rule results");
const RESULTS_WITH_IMAGES = Symbol("shared rule results, with images");
const newSharedResults = (): SharedResults => new Map();

/** A rule whose evaluation exhausts the stack (hostile nesting or recursion) is an error, never a crash. */
function evaluateGuarded(run: RuleRun): RuleResult | undefined {
  try {
    return evaluateRule(run);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return stackExceeded(run.rule.name);
  }
}

/** The error of a rule (or a CEL kind's program, named `rule` in results) whose evaluation exhausted the stack. */
export function stackExceeded(rule: string): RuleResult {
  return {
    rule,
    type: "Validation",
    status: "error",
    message: `rule ${rule}: evaluation exceeded the stack (input nested too deeply or recursive); not evaluated`,
  };
}

function evaluateRule(run: RuleRun): RuleResult | undefined {
  const { policy, rule: compiled, type } = run;
  const name = compiled.name;
  // Kyverno's PSS handler returns nothing for a DELETE, before exceptions, context or preconditions.
  if (compiled.rule.validate?.podSecurity !== undefined && run.request.operation === "DELETE") return undefined;
  const scope = ruleScope(run);
  if (!scope.ok) return scope.result;
  // Matched, not excepted, preconditions met: a rule Bylaw cannot run answers with an error.
  if (compiled.unsupported !== undefined) return ruleResult(name, type, "error", compiled.unsupported);
  if (compiled.rule.verifyImages !== undefined && compiled.rule.validate === undefined)
    return validateImageRule(run, scope.vars);
  // The rule context's `request` is the request's own, whichever policy asks: converted once per request.
  if (compiled.cel !== undefined) {
    const input = requestCelInput(run.request, scope.vars.data);
    const namespace = resourceNamespace(run.request.subject);
    return evaluateCelRule(compiled.cel, name, input, (kind, ref) =>
      resolveParams(kind, ref, namespace, run.env.ports.context),
    );
  }
  const validate = compiled.rule.validate;
  if (validate === undefined) return undefined;
  const vars = scope.vars;
  const target = run.request.subject;
  if (validate.podSecurity !== undefined)
    return podSecurityRule(compiled, target, {
      exceptions: scope.exceptions ?? [],
      checks: run.request.derived(POD_SECURITY_CHECKS, newCheckMemo),
    });
  if (compiled.manifests !== undefined) return manifestsRule(run, compiled.manifests, vars);
  if (validate.manifests !== undefined)
    return ruleResult(name, "Validation", "error", `rule ${name}: validate.manifests did not compile`);
  const passed = compiled.validatePass;
  const outcome = runValidation(
    validate,
    validate.message,
    {
      ruleName: name,
      target,
      vars,
      patterns: policy.patterns,
      passed,
      deleting: run.request.operation === "DELETE",
    },
    0,
  );
  if (outcome === undefined) return undefined;
  if (passed !== undefined && outcome === passed.outcome) return passed.result;
  if (outcome.status === "fail" && preExistingViolation(run)) {
    return ruleResult(
      name,
      "Validation",
      "skip",
      "skipping the rule evaluation as pre-existing violations are allowed",
    );
  }
  return ruleResult(name, "Validation", outcome.status, outcome.message, outcome.path);
}

/** The outcomes of the fast passes' patterns on the request's subject, shared by every rule of the request (validate/fast-pass.ts). */
const PATTERN_OUTCOMES = Symbol("pattern outcomes on the subject");
const newPatternOutcomes = (): SharedPatternOutcomes => new Map();

/** The request's subject's pod security check outcomes, shared by every podSecurity rule of the request. */
const POD_SECURITY_CHECKS = Symbol("pod security checks of the subject");
const newCheckMemo = (): CheckMemo => new Map();

/**
 * validate.podSecurity (Kyverno's PSS handler). Matched exceptions without podSecurity entries skip
 * the rule; otherwise their entries are extra exclusions, and a pod that passes only thanks to them
 * is a skip naming the exceptions.
 */
function podSecurityRule(
  compiled: CompiledRule,
  resource: Resource,
  o: { readonly exceptions: readonly CompiledException[]; readonly checks: CheckMemo },
): RuleResult {
  const exceptions = o.exceptions;
  const name = compiled.name;
  const ps = compiled.podSecurity;
  if (ps === undefined)
    return ruleResult(name, "Validation", "error", `rule ${name}: validate.podSecurity did not compile`);
  const plan = podSecurityExceptionPlan(exceptions);
  if (plan.kind === "skip")
    return { ...ruleResult(name, "Validation", "skip", plan.message), exceptions: plan.exceptions.map((e) => e.key) };
  const outcome = evaluatePodSecurity(ps, resource, {
    checks: o.checks,
    ...(plan.kind === "exclude" ? { extraExcludes: plan.exclusions } : {}),
  });
  if (outcome.error !== undefined) return ruleResult(name, "Validation", "error", outcome.error);
  const properties = podSecurityProperties(ps, outcome);
  if (outcome.allowed && plan.kind === "exclude" && outcome.exemptedByExtra) {
    return {
      ...ruleResult(name, "Validation", "skip", plan.skipMessage),
      exceptions: plan.exceptions.map((e) => e.key),
      properties,
    };
  }
  return {
    ...ruleResult(name, "Validation", outcome.allowed ? "pass" : "fail", podSecurityMessage(name, ps, outcome)),
    properties,
  };
}

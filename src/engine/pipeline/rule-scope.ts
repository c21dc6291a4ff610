/**
 * The steps every rule type shares once it matched (architecture "Flow of one rule"): per-rule CLI
 * values, the rule's context entries, then its preconditions. What is left is the variable scope the
 * rule's handler substitutes with; a context or precondition problem ends the rule with its result.
 */
import type { JsonObject } from "../api/json.js";
import { ruleResult, type RuleResult, type RuleType } from "../api/rule-result.js";
import { enterScope } from "../context/enter-scope.js";
import { setVariable } from "../context/variable-key.js";
import type { CompiledRule, KyvernoCompiledPolicy } from "../policy/compiled-policy.js";
import { substituteAll, type SubstitutionScope } from "../variables/index.js";
import {
  exceptionPolicyKey,
  exceptionSkipMessage,
  matchExceptions,
  type CompiledException,
} from "../exceptions/index.js";
import { isCelException } from "../exceptions/cel/index.js";
import { FunctionMemo } from "../jmespath/function-memo.js";
import type { FunctionContext } from "../jmespath/types.js";
import type { PreparedRequest } from "./prepared-request.js";
import type { EngineEnv, EngineRequest } from "./types.js";

type RuleScope =
  | {
      readonly ok: true;
      readonly vars: SubstitutionScope;
      /** validate.podSecurity rules only: the exceptions that matched (their handler applies them). */
      readonly exceptions?: readonly CompiledException[];
    }
  | { readonly ok: false; readonly result: RuleResult };

/**
 * One matched rule's run against one prepared request: what every step after match/exclude reads.
 * `base` is the context the rule starts from: the request's base, and for mutate rules with
 * `request.object` set to the resource the earlier rules patched.
 */
export interface RuleRun {
  readonly policy: KyvernoCompiledPolicy;
  readonly rule: CompiledRule;
  readonly type: RuleType;
  readonly env: EngineEnv;
  readonly request: PreparedRequest;
  readonly base: JsonObject;
}

/**
 * After match/exclude and before the rule's own context, PolicyExceptions are checked (Kyverno's
 * rule handlers do the same for every rule type): a matching exception skips the rule, except on a
 * validate.podSecurity rule, whose handler turns the exceptions into exclusions.
 */
export function ruleScope(run: RuleRun): RuleScope {
  const { type } = run;
  const request = run.request.request;
  const rule = run.rule.rule;
  const name = run.rule.name;
  // kyverno.io exceptions name ClusterPolicy/Policy rules; the CEL kinds take policies.kyverno.io ones in their own evaluation.
  const excepted = request.exceptions !== undefined && request.exceptions.length > 0 ? exceptionsFor(run) : [];
  const podSecurity = rule.validate?.podSecurity !== undefined && type === "Validation";
  if (excepted.length > 0 && !podSecurity) {
    return {
      ok: false,
      result: {
        ...ruleResult(name, type, "skip", exceptionSkipMessage(excepted)),
        exceptions: excepted.map((e) => e.key),
      },
    };
  }
  const vars = startScope(run);
  if (rule.context === undefined && rule.preconditions === undefined && excepted.length === 0)
    return { ok: true, vars };
  const entered = enterScope(vars, rule.context, rule.preconditions);
  if (entered.kind !== "ready") return { ok: false, result: ruleResult(name, type, entered.kind, entered.message) };
  return excepted.length > 0
    ? { ok: true, vars: entered.vars, exceptions: excepted }
    : { ok: true, vars: entered.vars };
}

/**
 * The variable scope a matched rule starts from, before its context entries and preconditions:
 * the base context with the CLI's per-rule values and the first foreach values.
 */
export function startScope(run: RuleRun): SubstitutionScope {
  const { policy, env, base } = run;
  const request = run.request.request;
  const operation = run.request.operation;
  const foreachValues = request.ruleForeachValues?.(policy.name, run.rule.name);
  const data = ruleStartData(request, { policy: policy.name, rule: run.rule.name, base });
  const shared = run.request.sharedConditions(data);
  return {
    data,
    jmespath: env.jmespath,
    fnctx: requestFunctions(run),
    cache: policy.cache,
    operation,
    policyNamespace: policy.namespace,
    ...(foreachValues !== undefined ? { foreachValues } : {}),
    ...(shared !== undefined ? { shared } : {}),
  };
}

const REQUEST_FUNCTIONS = Symbol("rule-scope.request-functions");

/**
 * The JMESPath function context of the run's request: the engine's, with a memo of the answers of
 * functions of their text alone (jmespath/function-memo.ts) that lives as long as the prepared request.
 */
function requestFunctions(run: RuleRun): FunctionContext {
  return run.request.derived(REQUEST_FUNCTIONS, () => ({ ...run.env.fnctx, memo: new FunctionMemo() }));
}

/**
 * The data a rule (or a CEL kind's program, whose results name `rule`) starts from: `base` with the
 * CLI's per-rule values and, as Kyverno's CLI adds them whenever the rule's context loads, at the
 * current element (before any foreach runs, the first), the foreach values.
 */
export function ruleStartData(
  request: EngineRequest,
  at: { readonly policy: string; readonly rule: string; readonly base: JsonObject },
): JsonObject {
  let data = at.base;
  const ruleVars = request.ruleVariables?.(at.policy, at.rule);
  if (ruleVars !== undefined) for (const [k, v] of Object.entries(ruleVars)) data = setVariable(data, k, v);
  const foreachValues = request.ruleForeachValues?.(at.policy, at.rule);
  if (foreachValues !== undefined)
    for (const [k, list] of Object.entries(foreachValues))
      if (list[0] !== undefined) data = setVariable(data, k, list[0]);
  return data;
}

/** The kyverno.io PolicyExceptions that apply to the run's rule and request. */
export function exceptionsFor(run: RuleRun): CompiledException[] {
  const { policy, env, base } = run;
  const request = run.request.request;
  const operation = run.request.operation;
  const scope: SubstitutionScope = {
    data: base,
    jmespath: env.jmespath,
    fnctx: requestFunctions(run),
    cache: policy.cache,
    operation,
  };
  const userInfo = request.background === true ? undefined : request.userInfo;
  const classic = (request.exceptions ?? []).filter((e): e is CompiledException => !isCelException(e));
  if (classic.length === 0) return [];
  return matchExceptions(
    classic,
    {
      policy: exceptionPolicyKey(policy),
      rule: run.rule.name,
      resource: run.request.subject,
      operation,
      ...(request.subresource !== undefined ? { subresource: request.subresource } : {}),
      ...(request.matchKind !== undefined ? { matchKind: request.matchKind } : {}),
      ...(userInfo !== undefined ? { userInfo } : {}),
      namespaceLabels: request.namespaceLabels,
      substitute: (v) => substituteAll(v, scope),
      background: request.background === true,
    },
    request.exceptionNamespaces !== undefined ? { allowedNamespaces: request.exceptionNamespaces } : {},
  );
}

/**
 * One validate.cel rule against one request, as Kyverno's CEL handler answers through Kubernetes'
 * validating-policy machinery: preconditions not all true → skip "cel preconditions not met"; the
 * first validation that is not true → fail with its messageExpression, message, or "failed
 * expression: <expr>"; an evaluation error → fail with the error (Kubernetes' failurePolicy Fail);
 * all true → pass "Validation rule '<name>' passed.". Variables evaluate once each, in order.
 */
import type { RuleResult } from "../../api/rule-result.js";
import { fromCel, toCel } from "../values.js";
import type { CompiledParamRef, ParamKindRef, ParamOutcome } from "../params/index.js";
import { RUNTIME_COST_BUDGET, type CelActivation, type CostBudget } from "../types.js";
import type { CompiledCelRule } from "./compile.js";
import type { CelRuleInput } from "./input.js";

const MAX_MESSAGE_BYTES = 5 * 1024;

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The rule's activation. Variables are evaluated in order up front (each reads only earlier ones):
 * a value is a plain field, and a variable that fails becomes a field that raises its error when
 * an expression reads it, so an unused failing variable changes nothing, as with Kubernetes' lazy
 * evaluation. (Unused variables still spend cost; getters per request were 10x slower.)
 */
function activationFor(
  rule: CompiledCelRule,
  input: CelRuleInput,
  budget: CostBudget,
  params: unknown,
): Record<string, unknown> {
  // (One literal, not a spread of a shared part: this runs once per rule and request.)
  const variables: Record<string, unknown> = rule.variables.length === 0 ? NO_VARIABLES : {};
  const activation = {
    object: input.object,
    oldObject: input.oldObject,
    request: input.request,
    namespaceObject: input.namespaceObject,
    params,
    variables,
  };
  if (rule.variables.length === 0) return activation;
  for (const v of rule.variables) {
    const r = v.program.evaluate(activation, budget);
    if (r.ok) variables[v.name] = r.value;
    else {
      const message = `composited variable "${v.name}" fails to evaluate: ${r.error.message}`;
      Object.defineProperty(variables, v.name, {
        enumerable: true,
        get() {
          throw new Error(message);
        },
      });
    }
  }
  return activation;
}

/** A messageExpression's value as Kubernetes keeps it: a non-empty one-line string of at most 5 KiB, trimmed; else undefined. */
export function messageOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = value.trim();
  if (m === "" || m.includes("\n") || m.length > MAX_MESSAGE_BYTES) return undefined;
  return m;
}

/**
 * `params` finds the objects of the rule's paramKind/paramRef (cel/params/resolve.ts); the rule runs
 * once per object, in order, as Kyverno's CEL handler does (validate_cel.go `Process`): the first
 * run whose preconditions are not met answers skip, the first that fails or errs answers for the
 * rule. A selector that finds none (parameterNotFoundAction not Deny): no validation runs and the
 * rule passes "Validation rule '<name>' passed.", as Kyverno answers. A paramRef that cannot be
 * served (by name not found, Deny with none, a namespace problem, no objects given at all): `error`
 * "error in parameterized resource: …".
 */
export function evaluateCelRule(
  rule: CompiledCelRule,
  name: string,
  input: CelRuleInput,
  params?: (kind: ParamKindRef, ref: CompiledParamRef) => ParamOutcome,
): RuleResult {
  if (rule.params === undefined) return evaluateWith(rule, name, input, null);
  const found = params?.(rule.params.kind, rule.params.ref) ?? {
    kind: "unavailable" as const,
    message: "no parameter objects were given",
  };
  const result = (status: RuleResult["status"], message: string): RuleResult => celResult(name, status, message);
  if (found.kind === "none") return result("pass", `Validation rule '${name}' passed.`);
  if (found.kind !== "params") return result("error", `error in parameterized resource: ${found.message}`);
  for (const p of found.params) {
    const r = evaluateWith(rule, name, input, p === null ? null : toCel(p));
    if (r.status !== "pass") return r;
  }
  return result("pass", `Validation rule '${name}' passed.`);
}

function celResult(rule: string, status: RuleResult["status"], message: string): RuleResult {
  return { rule, type: "Validation", status, message };
}

function evaluateWith(rule: CompiledCelRule, name: string, input: CelRuleInput, params: unknown): RuleResult {
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const activation: CelActivation = activationFor(rule, input, budget, params);
  for (const p of rule.preconditions) {
    const r = p.evaluate(activation, budget);
    // A precondition is a Kubernetes matchCondition: its error reads as a validation's (failurePolicy Fail).
    if (!r.ok) return celResult(name, "fail", `expression '${p.expression}' resulted in error: ${r.error.message}`);
    if (r.value !== true) return celResult(name, "skip", "cel preconditions not met");
  }
  for (const v of rule.validations) {
    const r = v.program.evaluate(activation, budget);
    if (!r.ok) return celResult(name, "fail", `expression '${v.expression}' resulted in error: ${r.error.message}`);
    if (r.value === true) continue;
    let message: string | undefined;
    if (v.messageExpression !== undefined) {
      const m = v.messageExpression.evaluate(activation, budget);
      if (m.ok) message = messageOf(fromCel(m.value));
    }
    message ??= v.message !== undefined && v.message.trim() !== "" ? v.message.trim() : undefined;
    return celResult(name, "fail", message ?? `failed expression: ${v.expression.trim()}`);
  }
  return celResult(name, "pass", `Validation rule '${name}' passed.`);
}

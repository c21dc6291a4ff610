/**
 * One ValidatingPolicy against one request, as Kyverno's ValidatingPolicy engine answers
 * (pkg/cel/policies/vpol): matchConstraints undecidable → error; matchConditions not all true →
 * skip "skip" (an error in them: error under failurePolicy Fail, skip under Ignore); then the
 * validations in order: an evaluation error → error "error: …"; the first false → fail with its
 * messageExpression, message, or "CEL expression validation failed at index N"; all true → pass
 * "success". Variables are lazy: each evaluates once, when first read, and a failing one raises
 * its error only where it is read. auditAnnotations evaluate after the validations; their errors
 * are errors, their non-empty string values the result's properties. A failing or erring
 * validation's index is the property `cel.validationIndex`. The rule name is "" (Kyverno names none),
 * but for an error the policy's evaluation itself returns (an exception's or a matchCondition's, an
 * audit annotation's once every validation passed): rule "evaluation", "failed to load context: …".
 * An audit annotation whose value is not a string (null) is an error in cel-go's words, as Kyverno
 * converts it to a Go string.
 */
import { ruleResult, type RuleResult } from "../../api/rule-result.js";
import type { MatchRequest } from "../../match/index.js";
import type { CelRuleInput } from "../validate-rule/index.js";
import { fromCel } from "../values.js";
import type { CelServices } from "../kyverno/index.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../types.js";
import { VALIDATING_POLICY_RULE, type CompiledValidatingPolicy } from "./compiled.js";
import type { CompiledCelException } from "../../exceptions/cel/index.js";
import { decideExceptions } from "./exceptions.js";
import { policyActivation } from "../lazy-variables.js";
import { stringConversionError } from "../string-conversion.js";

const NAME = VALIDATING_POLICY_RULE;

function result(status: RuleResult["status"], message: string, properties?: Record<string, string>): RuleResult {
  const r = ruleResult(NAME, "Validation", status, message);
  return properties === undefined || Object.keys(properties).length === 0 ? r : { ...r, properties };
}

/** The rule Kyverno's vpol engine names an error of the policy's evaluation itself ("failed to load context"). */
const EVALUATION_RULE = "evaluation";

function loadError(cause: string): RuleResult {
  return ruleResult(EVALUATION_RULE, "Validation", "error", `failed to load context: ${cause}`);
}

/** Kyverno's report property naming the validation that failed or erred (its vpol engine's `cel.validationIndex`). */
const VALIDATION_INDEX = "cel.validationIndex";

/** What `exceptions` holds when no partial exception matched. */
const NO_EXCEPTIONS = Object.freeze({ allowedImages: [], allowedValues: [] });

/**
 * `services` are the ports Kyverno's libraries read through (resource.Get, time.now, …) and whose
 * policy asks; `exceptions` the policies.kyverno.io PolicyExceptions naming this policy (see
 * exceptions.ts for what they do).
 */
export function evaluateValidatingPolicy(
  policy: CompiledValidatingPolicy,
  req: MatchRequest,
  input: CelRuleInput,
  services: CelServices,
  exceptions: readonly CompiledCelException[] = [],
): RuleResult | undefined {
  const verdict = policy.constraints.decide(req);
  if (verdict.kind === "no-match") return undefined;
  if (verdict.kind === "error") return result("error", verdict.message);
  return evaluateBody(policy, input, services, exceptions);
}

/** Everything after matchConstraints: exceptions, matchConditions, validations, auditAnnotations. */
export function evaluateBody(
  policy: CompiledValidatingPolicy,
  input: CelRuleInput,
  services: CelServices,
  exceptions: readonly CompiledCelException[],
): RuleResult {
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  let allowed: unknown = NO_EXCEPTIONS;
  if (exceptions.length > 0) {
    const decided = decideExceptions(
      exceptions,
      {
        object: input.object,
        oldObject: input.oldObject,
        request: input.request,
        namespaceObject: input.namespaceObject,
      },
      policy.failurePolicy,
      budget,
      services,
    );
    if (decided.kind === "exempt") return decided.result;
    if (decided.kind === "error") return loadError(decided.cause);
    allowed = { allowedImages: decided.allowedImages, allowedValues: decided.allowedValues };
  }
  const activation = policyActivation(policy.variables, input, { extra: { exceptions: allowed }, budget, services });
  const conditionErrors: string[] = [];
  for (const c of policy.matchConditions) {
    const r = c.program.evaluate(activation, budget, services);
    if (!r.ok) conditionErrors.push(r.error.message);
    else if (r.value !== true) return result("skip", "skip");
  }
  if (conditionErrors.length > 0) {
    return policy.failurePolicy === "Ignore" ? result("skip", "skip") : loadError(conditionErrors.join("; "));
  }
  let failed: { readonly index: number; readonly message: string } | undefined;
  for (let i = 0; i < policy.validations.length && failed === undefined; i++) {
    const v = policy.validations[i];
    if (v === undefined) continue;
    const r = v.program.evaluate(activation, budget, services);
    if (r.ok && r.value === true) continue;
    // The validation's index is built only for a validation that did not pass (the common case allocates nothing).
    if (!r.ok) return result("error", `error: ${r.error.message}`, { [VALIDATION_INDEX]: String(i) });
    if (r.value !== false)
      return result("error", `error: validations[${i}] ('${v.expression.trim()}') did not evaluate to a bool`, {
        [VALIDATION_INDEX]: String(i),
      });
    let message = v.message;
    if (v.messageExpression !== undefined) {
      const m = v.messageExpression.evaluate(activation, budget, services);
      const value = m.ok ? fromCel(m.value) : undefined;
      message = !m.ok
        ? `failed to evaluate message expression: ${m.error.message}`
        : typeof value === "string"
          ? value
          : "failed to convert message expression to string";
    }
    failed = { index: i, message: message === "" ? `CEL expression validation failed at index ${i}` : message };
  }
  // The audit annotations' values are the result's properties (Kyverno's, a non-empty string each).
  const annotations: Record<string, string> = {};
  for (const a of policy.auditAnnotations) {
    const r = a.program.evaluate(activation, budget, services);
    const value = r.ok ? r.value : undefined;
    const conversion = r.ok ? stringConversionError(value) : undefined;
    const error = !r.ok
      ? `failed to evaluate auditAnnotation '${a.key}': ${r.error.message}`
      : conversion !== undefined
        ? `failed to convert auditAnnotation '${a.key}' expression: ${conversion}`
        : undefined;
    if (error !== undefined)
      return failed === undefined
        ? loadError(error)
        : result("error", `error: ${error}`, { [VALIDATION_INDEX]: String(failed.index) });
    if (typeof value === "string" && value !== "") annotations[a.key] = value;
  }
  if (failed === undefined) return result("pass", "success", annotations);
  // The index unless an audit annotation of that name says otherwise.
  return result("fail", failed.message, { [VALIDATION_INDEX]: String(failed.index), ...annotations });
}

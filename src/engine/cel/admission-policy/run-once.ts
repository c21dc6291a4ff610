/**
 * One run of a ValidatingAdmissionPolicy's body with the params a binding chose, as Kyverno 1.19's CLI
 * runs it (pkg/admissionpolicy `validateResource`): matchConditions not all true → skip "match
 * conditions aren't met" (an evaluation error in them is an error); the validations in order: an
 * evaluation error → error "expression '<expr>' resulted in error: …"; the first false → fail with its
 * messageExpression (a string, trimmed, one line), its message, or "failed expression: <expr>"; then
 * auditAnnotations (an evaluation error is an error); all true → pass with no message. Variables are
 * lazy: each evaluates once, when first read. The rule name is the policy's, as Kyverno names VAP results.
 */
import type { RuleResult, RuleStatus } from "../../api/rule-result.js";
import type { JsonObject } from "../../api/json.js";
import type { CelServices } from "../kyverno/index.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../types.js";
import { messageOf, type CelRuleInput } from "../validate-rule/index.js";
import type { CompiledValidatingPolicy } from "../validating-policy/compiled.js";
import { fromCel, toCel } from "../values.js";
import type { CompiledAdmissionPolicy, CompiledBinding } from "./compiled.js";
import { policyActivation } from "../lazy-variables.js";

const SKIP_MESSAGE = "match conditions aren't met";

export type Outcome = { readonly status: RuleStatus; readonly message: string };

export function resultOf(ap: CompiledAdmissionPolicy, binding: CompiledBinding | undefined, o: Outcome): RuleResult {
  // Each binding has its own validationActions: Deny enforces, Warn and Audit do not (an unbound policy fails as Kyverno's CLI reports it).
  const action = binding === undefined || binding.actions.includes("Deny") ? ("Enforce" as const) : ("Audit" as const);
  return {
    rule: ap.policyName,
    type: "Validation",
    status: o.status,
    message: o.message,
    action,
    ...(binding !== undefined ? { properties: { binding: binding.name } } : {}),
  };
}

export function evaluateOnce(
  body: CompiledValidatingPolicy,
  input: CelRuleInput,
  param: JsonObject | null,
  services: CelServices,
): Outcome {
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const activation = policyActivation(body.variables, input, {
    extra: { params: param === null ? null : toCel(param) },
    budget,
    services,
    failure: (name, message) => `composited variable "${name}" fails to evaluate: ${message}`,
  });
  const conditionErrors: string[] = [];
  for (const c of body.matchConditions) {
    const r = c.program.evaluate(activation, budget, services);
    if (!r.ok) conditionErrors.push(`expression '${c.program.expression}' resulted in error: ${r.error.message}`);
    else if (r.value !== true) return { status: "skip", message: SKIP_MESSAGE };
  }
  if (conditionErrors.length > 0)
    return {
      status: "error",
      message: conditionErrors.length === 1 ? (conditionErrors[0] ?? "") : `[${conditionErrors.join(", ")}]`,
    };
  for (const v of body.validations) {
    const r = v.program.evaluate(activation, budget, services);
    if (!r.ok)
      return { status: "error", message: `expression '${v.expression}' resulted in error: ${r.error.message}` };
    if (r.value === true) continue;
    let message: string | undefined;
    if (v.messageExpression !== undefined) {
      const m = v.messageExpression.evaluate(activation, budget, services);
      if (m.ok) message = messageOf(fromCel(m.value));
    }
    message ??= v.message.trim() !== "" ? v.message.trim() : undefined;
    return { status: "fail", message: message ?? `failed expression: ${v.expression.trim()}` };
  }
  for (const a of body.auditAnnotations) {
    const r = a.program.evaluate(activation, budget, services);
    if (!r.ok)
      return {
        status: "error",
        message: `expression '${a.program.expression}' resulted in error: ${r.error.message}`,
      };
  }
  return { status: "pass", message: "" };
}

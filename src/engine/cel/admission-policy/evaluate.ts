/**
 * One ValidatingAdmissionPolicy, through one binding (or none), against one request, as Kyverno's
 * CLI reports what Kubernetes' validator decides (pkg/admissionpolicy): the policy's matchConstraints
 * and the binding's matchResources decide whether it applies (no result when not; an error when
 * Bylaw cannot decide); the binding's params are collected (params.ts) and the policy runs once per
 * param object. Per run: matchConditions not all true → skip "match conditions aren't met" (an
 * evaluation error in them is an error); the validations in order: an evaluation error → error
 * "expression '<expr>' resulted in error: …"; the first false → fail with its messageExpression
 * (a string, trimmed, one line), its message, or "failed expression: <expr>"; then auditAnnotations
 * (an evaluation error is an error); all true → pass with no message. The first run that fails or
 * errs answers for the binding. Variables are lazy: each evaluates once, when first read.
 * The rule name is the policy's, as Kyverno names VAP results.
 */
import { resourceNamespace } from "../../api/resource.js";
import type { RuleResult, RuleStatus } from "../../api/rule-result.js";
import type { JsonObject } from "../../api/json.js";
import type { MatchRequest } from "../../match/index.js";
import type { CelServices } from "../kyverno/index.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../types.js";
import type { CelRuleInput } from "../validate-rule/index.js";
import type { CompiledValidatingPolicy } from "../validating-policy/compiled.js";
import { fromCel, toCel } from "../values.js";
import type { CompiledAdmissionPolicy } from "./compiled.js";
import { resolveParams } from "../params/index.js";
import { defineLazyVariables } from "../lazy-variables.js";

const MAX_MESSAGE_BYTES = 5 * 1024;
const SKIP_MESSAGE = "match conditions aren't met";

type Outcome = { readonly status: RuleStatus; readonly message: string };

export function evaluateAdmissionPolicy(ap: CompiledAdmissionPolicy, req: MatchRequest, input: CelRuleInput, services: CelServices): RuleResult | undefined {
  const binding = ap.binding;
  // Each binding has its own validationActions: Deny enforces, Warn and Audit do not (an unbound policy fails as Kyverno's CLI reports it).
  const action = binding === undefined || binding.actions.includes("Deny") ? ("Enforce" as const) : ("Audit" as const);
  const result = (o: Outcome): RuleResult => ({ rule: ap.policyName, type: "Validation", status: o.status, message: o.message, action, ...(binding !== undefined ? { properties: { binding: binding.name } } : {}) });
  for (const constraints of [ap.body.constraints, binding?.constraints]) {
    const verdict = constraints?.decide(req);
    if (verdict?.kind === "no-match") return undefined;
    if (verdict?.kind === "error") return result({ status: "error", message: verdict.message });
  }
  const params = resolveParams(ap.paramKind, binding?.paramRef, resourceNamespace(req.resource), services.ports.context);
  if (params.kind === "unavailable") return result({ status: "error", message: params.message });
  if (params.kind === "none") return result({ status: "skip", message: params.message });
  if (params.kind === "config-error") {
    const message = `failed to configure binding: ${params.message}`;
    return result(ap.body.failurePolicy === "Ignore" ? { status: "skip", message: `${message} (failurePolicy Ignore)` } : { status: "error", message });
  }
  let answer: Outcome | undefined;
  for (const param of params.params) {
    const o = evaluateOnce(ap.body, input, param, services);
    if (o.status === "fail" || o.status === "error") return result(o);
    if (answer === undefined || answer.status === "skip") answer = o;
  }
  return result(answer ?? { status: "pass", message: "" });
}

function activationFor(body: CompiledValidatingPolicy, input: CelRuleInput, params: unknown, budget: CostBudget, services: CelServices): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  const activation = { object: input.object, oldObject: input.oldObject, request: input.request, namespaceObject: input.namespaceObject, params, variables };
  defineLazyVariables(variables, body.variables, activation, budget, services, (name, message) => `composited variable "${name}" fails to evaluate: ${message}`);
  return activation;
}

function messageOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = value.trim();
  if (m === "" || m.includes("\n") || m.length > MAX_MESSAGE_BYTES) return undefined;
  return m;
}

function evaluateOnce(body: CompiledValidatingPolicy, input: CelRuleInput, param: JsonObject | null, services: CelServices): Outcome {
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const activation = activationFor(body, input, param === null ? null : toCel(param), budget, services);
  const conditionErrors: string[] = [];
  for (const c of body.matchConditions) {
    const r = c.program.evaluate(activation, budget, services);
    if (!r.ok) conditionErrors.push(`expression '${c.program.expression.trim()}' resulted in error: ${r.error.message}`);
    else if (r.value !== true) return { status: "skip", message: SKIP_MESSAGE };
  }
  if (conditionErrors.length > 0) return { status: "error", message: conditionErrors.length === 1 ? conditionErrors[0] ?? "" : `[${conditionErrors.join(", ")}]` };
  for (const v of body.validations) {
    const r = v.program.evaluate(activation, budget, services);
    if (!r.ok) return { status: "error", message: `expression '${v.expression.trim()}' resulted in error: ${r.error.message}` };
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
    if (!r.ok) return { status: "error", message: `expression '${a.program.expression.trim()}' resulted in error: ${r.error.message}` };
  }
  return { status: "pass", message: "" };
}

/**
 * One validate.cel rule against one request, as Kyverno's CEL handler answers through Kubernetes'
 * validating-policy machinery: preconditions not all true → skip "cel preconditions not met"; the
 * first validation that is not true → fail with its messageExpression, message, or "failed
 * expression: <expr>"; an evaluation error → fail with the error (Kubernetes' failurePolicy Fail);
 * all true → pass "Validation rule '<name>' passed.". Variables evaluate lazily, once each.
 */
import type { JsonObject } from "../../api/json.js";
import type { RuleResult } from "../../api/rule-result.js";
import { fromCel, toCel } from "../values.js";
import { RUNTIME_COST_BUDGET, type CelActivation, type CostBudget } from "../types.js";
import type { CompiledCelRule } from "./compile.js";

export interface CelRuleInput {
  /** The object (null on DELETE), the old object (null on CREATE). */
  readonly object: JsonObject | null;
  readonly oldObject: JsonObject | null;
  /** The AdmissionRequest as CEL's `request` sees it (without object/oldObject). */
  readonly request: JsonObject;
  readonly namespaceObject: JsonObject | null;
}

const MAX_MESSAGE_BYTES = 5 * 1024;

class VariableError extends Error {}

function lazyVariables(rule: CompiledCelRule, base: Record<string, unknown>, budget: CostBudget): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const activation = { ...base, variables: out };
  for (const v of rule.variables) {
    let state: "new" | "running" | "done" = "new";
    let value: unknown;
    Object.defineProperty(out, v.name, {
      enumerable: true,
      get() {
        if (state === "done") return value;
        if (state === "running") throw new VariableError(`composited variable "${v.name}" refers to itself`);
        state = "running";
        const r = v.program.evaluate(activation, budget);
        if (!r.ok) {
          state = "new";
          throw new VariableError(`composited variable "${v.name}" fails to evaluate: ${r.error.message}`);
        }
        value = r.value;
        state = "done";
        return value;
      },
    });
  }
  return activation;
}

function messageOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = value.trim();
  if (m === "" || m.includes("\n") || m.length > MAX_MESSAGE_BYTES) return undefined;
  return m;
}

export function evaluateCelRule(rule: CompiledCelRule, name: string, input: CelRuleInput): RuleResult {
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const base: Record<string, unknown> = {
    object: input.object === null ? null : toCel(input.object),
    oldObject: input.oldObject === null ? null : toCel(input.oldObject),
    request: toCel(input.request),
    namespaceObject: input.namespaceObject === null ? null : toCel(input.namespaceObject),
    params: null,
  };
  const activation: CelActivation = lazyVariables(rule, base, budget);
  const result = (status: RuleResult["status"], message: string): RuleResult => ({ rule: name, type: "Validation", status, message });
  for (const p of rule.preconditions) {
    const r = p.evaluate(activation, budget);
    if (!r.ok) return result("fail", `cel precondition '${p.expression.trim()}' resulted in error: ${r.error.message}`);
    if (r.value !== true) return result("skip", "cel preconditions not met");
  }
  for (const v of rule.validations) {
    const r = v.program.evaluate(activation, budget);
    if (!r.ok) return result("fail", `expression '${v.expression.trim()}' resulted in error: ${r.error.message}`);
    if (r.value === true) continue;
    let message: string | undefined;
    if (v.messageExpression !== undefined) {
      const m = v.messageExpression.evaluate(activation, budget);
      if (m.ok) message = messageOf(fromCel(m.value));
    }
    message ??= v.message !== undefined && v.message.trim() !== "" ? v.message.trim() : undefined;
    return result("fail", message ?? `failed expression: ${v.expression.trim()}`);
  }
  return result("pass", `Validation rule '${name}' passed.`);
}

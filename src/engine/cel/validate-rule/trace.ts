/**
 * A kyverno.io rule's `celPreconditions` and `validate.cel` run for an explanation, as
 * evaluate.ts runs them: each precondition until one is not met, then each expression until one
 * does not hold. A rule with a paramRef runs once per parameter object; its result names the one
 * that decided, so no trace is made for it here.
 */
import { RUNTIME_COST_BUDGET, type CostBudget } from "../types.js";
import { type CelStep, traceStep } from "../trace-step.js";
import type { CompiledCelRule } from "./compile.js";
import { activationFor } from "./evaluate.js";
import type { CelRuleInput } from "./input.js";

export function traceCelRule(rule: CompiledCelRule, input: CelRuleInput): readonly CelStep[] | undefined {
  if (rule.params !== undefined) return undefined;
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const run = { activation: activationFor(rule, input, budget, null), budget };
  const steps: CelStep[] = [];
  for (const [i, p] of rule.preconditions.entries()) {
    const step = traceStep(`celPreconditions[${i}]`, p, run);
    steps.push(step);
    if (step.value !== true) return steps;
  }
  for (const [i, v] of rule.validations.entries()) {
    const step = traceStep(`validate.cel.expressions[${i}]`, v.program, run);
    steps.push(step);
    if (step.value !== true) return steps;
  }
  return steps;
}

/**
 * A ValidatingPolicy's body run for an explanation: each matchCondition and validation its
 * evaluation reaches (evaluate.ts `evaluateBody`), with the expression and what it gave. Variables
 * are shown as the expressions read them. Built only when asked; PolicyExceptions are left to the
 * result (which names them).
 */
import type { CelRuleInput } from "../validate-rule/index.js";
import type { CelServices } from "../kyverno/index.js";
import { RUNTIME_COST_BUDGET, type CelProgram, type CostBudget } from "../types.js";
import { policyActivation } from "../lazy-variables.js";
import { type CelStep, traceStep } from "../trace-step.js";
import type { CompiledValidatingPolicy } from "./compiled.js";

export function traceValidatingBody(
  policy: CompiledValidatingPolicy,
  input: CelRuleInput,
  services: CelServices,
): readonly CelStep[] {
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const activation = policyActivation(policy.variables, input, {
    extra: { exceptions: { allowedImages: [], allowedValues: [] } },
    budget,
    services,
  });
  const run = (at: string, program: CelProgram): CelStep => traceStep(at, program, { activation, budget, services });
  const steps: CelStep[] = [];
  // As evaluateBody: a false condition ends the run; errors are gathered, then end it.
  let failed = false;
  for (const c of policy.matchConditions) {
    const step = run(`matchConditions[${c.name}]`, c.program);
    steps.push(step);
    if (step.error !== undefined) failed = true;
    else if (step.value !== true) return steps;
  }
  if (failed) return steps;
  for (const [i, v] of policy.validations.entries()) {
    const step = run(`validations[${i}]`, v.program);
    steps.push(step);
    if (step.value !== true) return steps;
  }
  return steps;
}

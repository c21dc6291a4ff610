/** One CEL expression run for an explanation: where it is written, its text, and what it gave or why it failed. */
import type { JsonValue } from "../api/json.js";
import type { CelActivation, CelProgram, CostBudget } from "./types.js";
import type { CelServices } from "./kyverno/index.js";
import { fromCel } from "./values.js";

export interface CelStep {
  /** `matchConditions[name]`, `validations[0]`, `validate.cel.expressions[1]`. */
  readonly at: string;
  readonly expression: string;
  /** What the expression gave; absent when it failed (`error`). */
  readonly value?: JsonValue;
  readonly error?: string;
}

export function traceStep(
  at: string,
  program: CelProgram,
  run: { readonly activation: CelActivation; readonly budget: CostBudget; readonly services?: CelServices },
): CelStep {
  const r = program.evaluate(run.activation, run.budget, run.services);
  const expression = program.expression.trim();
  return r.ok ? { at, expression, value: fromCel(r.value) } : { at, expression, error: r.error.message };
}

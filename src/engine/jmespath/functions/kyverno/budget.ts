/** Charging the interpreter's evaluation budget for work that grows with the output. */
import { JmesPathError, type FunctionContext } from "../../types.js";

/** Charges `units` of work; no-op when the interpreter set no budget. */
export function charge(ctx: FunctionContext, units: number): void {
  ctx.budget?.charge(units);
}

/** Refuses a string result longer than the budget allows, before it is built; charges its length. */
export function chargeLength(name: string, ctx: FunctionContext, length: number): void {
  checkLength(name, ctx, length);
  charge(ctx, length);
}

/** Refuses a string result longer than the budget allows, without charging (for growing results). */
export function checkLength(name: string, ctx: FunctionContext, length: number): void {
  const budget = ctx.budget;
  if (budget !== undefined && length > budget.maxStringLength) {
    throw new JmesPathError(
      "limit",
      `JMESPath function '${name}': the result would be longer than ${budget.maxStringLength} characters`,
    );
  }
}

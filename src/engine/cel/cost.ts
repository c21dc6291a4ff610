/**
 * The runtime cost limit. cel-go counts one unit per evaluated step and more for work that grows
 * with its input; here every evaluated AST node costs 1 (comprehension bodies once per element)
 * and a `+` costs a tenth of the size of the string or list it builds. The figures differ from
 * cel-go's in detail; what matters is the bound: a hostile expression stops with cel-go's error
 * (COST_LIMIT_MESSAGE) instead of running away.
 */
import { allNodes, resolvedEvaluate, type CelNode } from "./ast-nodes.js";

export class CostExceeded extends Error {
  constructor(readonly budgetExhausted: boolean) {
    super("cost limit exceeded");
  }
}

/** One per compiled program; reset before each evaluation (evaluation is synchronous). */
export class CostMeter {
  used = 0;
  limit = 0;
  exceeded: CostExceeded | undefined;

  reset(limit: number, budgetLimited: boolean): void {
    this.used = 0;
    this.limit = limit;
    this.exceeded = undefined;
    this.budgetLimited = budgetLimited;
  }
  budgetLimited = false;

  charge(units: number): void {
    this.used += units;
    if (this.used > this.limit) {
      // Stays exceeded: cel-js absorbs some errors (`true || e`), so the program also checks
      // `exceeded` after evaluation.
      this.exceeded ??= new CostExceeded(this.budgetLimited);
      throw this.exceeded;
    }
  }
}

/** Makes every node of a checked expression charge the meter before it runs. */
export function meterProgram(root: CelNode, meter: CostMeter): void {
  for (const node of allNodes(root)) {
    const run = resolvedEvaluate(node);
    if (node.op === "+") {
      node.evaluate = function (ev, ast, ctx) {
        meter.charge(1);
        const v = run.call(this, ev, ast, ctx);
        if (typeof v === "string" || Array.isArray(v)) meter.charge(Math.ceil(v.length / 10));
        return v;
      };
    } else {
      node.evaluate = function (ev, ast, ctx) {
        meter.charge(1);
        return run.call(this, ev, ast, ctx);
      };
    }
  }
}

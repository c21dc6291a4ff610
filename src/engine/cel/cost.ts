/**
 * The runtime cost limit. cel-go counts one unit per evaluated step and more for work that grows
 * with its input; here every evaluated AST node costs 1 (comprehension bodies once per element)
 * and a `+` costs a tenth of the size of the string or list it builds. The figures differ from
 * cel-go's in detail; what matters is the bound: a hostile expression stops with cel-go's error
 * (COST_LIMIT_MESSAGE) instead of running away.
 */
import { allNodes, resolvedEvaluate, type CelNode } from "./ast-nodes.js";
import { tick } from "../interrupt/index.js";

/** Cost units per tick of the caller's Interruption (engine/interrupt), as JMESPath's steps. */
const UNITS_PER_TICK = 64;

export class CostExceeded extends Error {
  constructor(readonly budgetExhausted: boolean) {
    super("cost limit exceeded");
  }
}

/** One per compiled program; reset before each evaluation (evaluation is synchronous). */
export class CostMeter {
  used = 0;
  limit = 0;
  /** Whether `limit` is the shared budget's remainder rather than the per-expression limit. */
  budgetLimited = false;
  exceeded: CostExceeded | undefined;

  reset(limit: number, budgetLimited: boolean): void {
    this.used = 0;
    this.limit = limit;
    this.exceeded = undefined;
    this.budgetLimited = budgetLimited;
  }

  /** One evaluated node; every UNITS_PER_TICK of them also tick the caller's Interruption. */
  step(): void {
    if (++this.used > this.limit) this.charge(0);
    if (this.used % UNITS_PER_TICK === 0) tick();
  }

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
        meter.step();
        const v = run.call(this, ev, ast, ctx);
        if (typeof v === "string" || Array.isArray(v)) meter.charge(Math.ceil(v.length / 10));
        return v;
      };
    } else {
      node.evaluate = function (ev, ast, ctx) {
        meter.step();
        return run.call(this, ev, ast, ctx);
      };
    }
  }
}

/**
 * The runtime cost limit. cel-go counts one unit per evaluated step and more for work that grows
 * with its input; here every evaluated AST node costs 1 (comprehension bodies once per element)
 * and a `+` costs a tenth of the size of the string or list it builds. The figures differ from
 * cel-go's in detail; what matters is the bound: a hostile expression stops with cel-go's error
 * (COST_LIMIT_MESSAGE) instead of running away. The values that lists, maps, strings and bytes
 * nodes build are also charged by size against the evaluation's size limit (value-size.ts).
 */
import { allNodes, resolvedEvaluate, type CelNode } from "./ast-nodes.js";
import { tick } from "../interrupt/index.js";
import { builtBytes, literalMapBytes } from "./value-size.js";

/** Cost units per tick of the caller's Interruption (engine/interrupt), as JMESPath's steps. */
const UNITS_PER_TICK = 64;

export class CostExceeded extends Error {
  constructor(
    readonly budgetExhausted: boolean,
    /** Whether the size of the values built, rather than the cost, passed its limit. */
    readonly sizeExceeded = false,
  ) {
    super(sizeExceeded ? "size limit exceeded" : "cost limit exceeded");
  }
}

/** The nodes that build a value: `+`, function calls and macros, list and map literals. */
const BUILDERS: ReadonlySet<string> = new Set(["+", "call", "rcall", "list", "map"]);

/** One per compiled program; reset before each evaluation (evaluation is synchronous). */
export class CostMeter {
  used = 0;
  limit = 0;
  /** Whether `limit` is the shared budget's remainder rather than the per-expression limit. */
  budgetLimited = false;
  exceeded: CostExceeded | undefined;
  /** Estimated bytes of the values built so far, and what they may reach. */
  built = 0;
  builtLimit = Number.POSITIVE_INFINITY;

  reset(limit: number, budgetLimited: boolean, builtLimit: number = Number.POSITIVE_INFINITY): void {
    this.used = 0;
    this.limit = limit;
    this.built = 0;
    this.builtLimit = builtLimit;
    this.exceeded = undefined;
    this.budgetLimited = budgetLimited;
  }

  /** One evaluated node; every UNITS_PER_TICK of them also tick the caller's Interruption. */
  step(): void {
    if (++this.used > this.limit) this.charge(0);
    if (this.used % UNITS_PER_TICK === 0) this.tick();
  }

  /**
   * Once the caller's Interruption has stopped the call, every further node of this evaluation
   * throws at once: cel-js's `all`/`exists` absorb an element's error and go on to the next element,
   * so without this the rest of a comprehension would still run (tens of milliseconds for a nested
   * one) before the interruption got out. The call ends with the interruption (it is sticky).
   */
  private tick(): void {
    try {
      tick();
    } catch (e) {
      this.limit = -1;
      throw e;
    }
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

  /** A value a node built: its size counts towards `builtLimit`. */
  build(value: unknown, bytes: number = builtBytes(value)): void {
    this.built += bytes;
    if (this.built > this.builtLimit) {
      this.exceeded ??= new CostExceeded(false, true);
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
        meter.build(v);
        return v;
      };
    } else if (BUILDERS.has(node.op)) {
      node.evaluate = function (ev, ast, ctx) {
        meter.step();
        const v = run.call(this, ev, ast, ctx);
        meter.build(v, node.op === "map" ? literalMapBytes(v) : undefined);
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

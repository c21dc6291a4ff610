/**
 * Per-evaluation state: the work budget, the ports functions may use, and the key behind the
 * last "not found". Also the internal value kinds the interpreter passes around: MISSING (the
 * fork's NotFoundError, carried as a value so the common `a.b || ''` does not throw) and ExprRef
 * (an `&expr` argument).
 */
import type { JsonValue } from "../api/json.js";
import type { EnginePorts } from "../ports.js";
import { charge as chargeInterrupt } from "../interrupt/index.js";
import { limitError, unknownKeyError } from "./errors.js";
import type { EvaluationBudget, ExpressionRef, FunctionContext } from "./types.js";
import type { FunctionMemo } from "./function-memo.js";

/** Marks a field access that hit a missing map key; the key is in `EvalState.missingKey`. */
export const MISSING: unique symbol = Symbol("jmespath.missing");
type Missing = typeof MISSING;

/** What an expression evaluates to inside the interpreter. */
export type Value = JsonValue | ExprRef;
export type Outcome = Value | Missing;

/** A compiled expression node (see evaluator.ts). */
type Evaluate = (value: Value, st: EvalState) => Outcome;

interface StateLimits {
  readonly maxSteps: number;
  readonly maxStringLength: number;
}

/**
 * Steps per tick of the caller's interruption (engine/interrupt): `checkAt` is the next step count
 * at which the budget is looked at, so the step budget and the interruption cost one compare.
 */
const STEPS_PER_TICK = 64;

export class EvalState implements FunctionContext, EvaluationBudget {
  steps = 0;
  /** The step count at which `checkpoint` runs next: the budget's end, or the next interruption tick. */
  checkAt: number;
  missingKey = "";
  readonly budget: EvaluationBudget = this;
  readonly maxSteps: number;
  readonly maxStringLength: number;

  constructor(
    readonly ports: EnginePorts,
    limits: StateLimits,
    readonly memo?: FunctionMemo,
  ) {
    this.maxSteps = limits.maxSteps;
    this.maxStringLength = limits.maxStringLength;
    this.checkAt = Math.min(this.maxSteps, STEPS_PER_TICK);
  }

  charge(units: number): void {
    this.steps += units;
    if (this.steps > this.checkAt) this.checkpoint();
  }

  /** Past `checkAt`: over budget, or time to tick the caller's interruption (which may throw). */
  checkpoint(): void {
    if (this.steps > this.maxSteps) this.overBudget();
    chargeInterrupt(Math.ceil((this.steps - this.checkAt) / STEPS_PER_TICK) + 1);
    this.checkAt = Math.min(this.maxSteps, this.steps + STEPS_PER_TICK);
  }

  overBudget(): never {
    throw limitError(
      `JMESPath evaluation exceeded its budget of ${this.maxSteps} steps; simplify the expression or reduce the data it reads`,
    );
  }
}

/** An `&expr` value. It has no own properties, so field lookups on it find nothing. */
export class ExprRef implements ExpressionRef {
  readonly #run: Evaluate;
  readonly #st: EvalState;

  constructor(run: Evaluate, st: EvalState) {
    this.#run = run;
    this.#st = st;
  }

  get kind(): "expref" {
    return "expref";
  }

  /** Evaluates the referenced expression; a missing key throws `Unknown key "x" in path`. */
  evaluate(data: JsonValue): JsonValue {
    const st = this.#st;
    const out = this.#run(data, st);
    if (out === MISSING) throw unknownKeyError(st.missingKey);
    return out as JsonValue;
  }
}

export function isExprRef(v: unknown): v is ExprRef {
  return v instanceof ExprRef;
}

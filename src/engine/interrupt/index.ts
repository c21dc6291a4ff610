/**
 * Stopping a long evaluation. The engine stays synchronous and pure: a caller that wants a bound
 * passes an `Interruption` (engine/ports.ts) with the call (`engine.validate(policy, request, i)`),
 * and the loops whose length the input decides tick: each foreach element, each list item of a
 * pattern walk, each container and volume of a Pod Security check, and
 * JMESPath every STEPS_PER_TICK steps. Every TICKS_PER_CHECK ticks the interruption's `check()`
 * runs (the caller reads its clock there, never the engine); when it throws, evaluation stops with
 * an `EvaluationInterrupted`, which no rule turns into a result: the call itself throws it. The
 * count carries over between calls with the same interruption (kept in its `ticks`), so work spread
 * over many small policies is counted like work in one.
 *
 * The hot path is one decrement and one compare of a module variable. Without an interruption the
 * counter never runs out. Once tripped, the interruption is sticky: any later tick throws it again,
 * and the facade throws it when the call ends even if some inner catch swallowed it (a JMESPath
 * function, a context entry's default), so a half-evaluated rule can never pass as a result.
 * Evaluation is synchronous and single-threaded, so one active interruption at a time is enough;
 * a nested call keeps the outer one.
 */
import type { Interruption } from "../ports.js";

/** An evaluation stopped by its caller's Interruption: not a result, not an engine bug. */
export class EvaluationInterrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EvaluationInterrupted";
  }
}

export function isInterruption(e: unknown): e is EvaluationInterrupted {
  return e instanceof EvaluationInterrupted;
}

/** Ticks between two calls of `check()`: about 0.05–1 ms of work, so the clock read is negligible. */
export const TICKS_PER_CHECK = 1024;

let active: Interruption | undefined;
let left = Number.POSITIVE_INFINITY;
let tripped: EvaluationInterrupted | undefined;

/** One unit of work (a foreach element, a list item, a container). */
export function tick(): void {
  if (--left <= 0) checkpoint();
}

/** `units` units of work at once. */
export function charge(units: number): void {
  left -= units;
  if (left <= 0) checkpoint();
}

function checkpoint(): void {
  if (tripped !== undefined) throw tripped;
  if (active === undefined) {
    left = Number.POSITIVE_INFINITY;
    return;
  }
  left = TICKS_PER_CHECK;
  try {
    active.check();
  } catch (e) {
    tripped = isInterruption(e) ? e : new EvaluationInterrupted(e instanceof Error ? e.message : String(e));
    left = 0;
    throw tripped;
  }
}

/**
 * Makes `interruption` the active one for a call; returns whether it did (false without one, or
 * inside a call that already has one). Pair with `endInterruptible` in a `finally`.
 */
export function beginInterruptible(interruption: Interruption | undefined): boolean {
  if (interruption === undefined || active !== undefined) return false;
  active = interruption;
  left = TICKS_PER_CHECK - interruption.ticks;
  tripped = undefined;
  return true;
}

/** Ends what `beginInterruptible` began; throws the interruption if it tripped during the call. */
export function endInterruptible(began: boolean): void {
  if (!began) return;
  const stopped = tripped;
  if (active !== undefined && stopped === undefined) active.ticks = Math.max(0, TICKS_PER_CHECK - left);
  active = undefined;
  left = Number.POSITIVE_INFINITY;
  tripped = undefined;
  if (stopped !== undefined) throw stopped;
}

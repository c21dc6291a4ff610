/**
 * Stopping a long evaluation. The engine stays synchronous and pure: a caller that wants a bound
 * passes an `Interruption` (engine/ports.ts) with the call (`engine.validate(policy, request, i)`),
 * and the loops whose length the input decides tick: each foreach element, each list item of a
 * pattern walk, each container and volume of a Pod Security check, and
 * JMESPath every STEPS_PER_TICK steps; a context entry read through a port (a live lookup, far
 * slower than a list item) counts CONTEXT_READ_UNITS. Every TICKS_PER_CHECK ticks (or the
 * interruption's own `ticksPerCheck`) the interruption's `check()` runs (the caller reads its clock there, never the engine); when it throws, evaluation stops with
 * an `EvaluationInterrupted`, which no rule turns into a result: the call itself throws it. The
 * count carries over between calls with the same interruption (kept in its `ticks`), so work spread
 * over many small policies is counted like work in one.
 *
 * Each engine has its own Meter (units left before the next check, the interruption, and whether it
 * tripped), so two engines never share a count. A call with an interruption runs on its engine's
 * meter; a call without one counts on the meter of the call it runs inside (its work is that
 * call's time), and a top-level one runs unmetered: its counter never runs out. A call nested in
 * another call of the same engine keeps the outer interruption; an engine run inside another's
 * evaluation (a port that evaluates) counts on its own meter, and the outer one resumes when it
 * returns. Once tripped, a meter is sticky: any later tick throws again, and the facade throws it
 * when the call ends even if some inner catch swallowed it (a JMESPath function, a context entry's
 * default), so a half-evaluated rule can never pass as a result.
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

/** Units a context entry read through a port counts (configMap, apiCall, globalReference, imageRegistry). */
export const CONTEXT_READ_UNITS = 16;

/** The units between two checks of `interruption`. */
const perCheck = (interruption: Interruption): number => interruption.ticksPerCheck ?? TICKS_PER_CHECK;

/**
 * Units left that never run out in practice (2^30). A literal small integer, so a meter's count is
 * always one of V8's small integers: a field that ever held a double (Infinity, or `2 ** 30`
 * computed) is boxed, and every read of it outside optimized code allocates.
 */
const UNLIMITED = 1_073_741_824;

/** One engine's meter: the interruption of the call it counts for, the units left before the next check, and whether it tripped. */
export class Meter {
  left: number;
  tripped: EvaluationInterrupted | undefined;
  interruption: Interruption | undefined;
  /** A call of its engine is counting on it now. */
  inUse: boolean;
  constructor() {
    this.left = UNLIMITED;
    this.tripped = undefined;
    this.interruption = undefined;
    this.inUse = false;
  }
}

/**
 * The meter of calls made with no interruption at top level: it never runs out and never trips.
 * Every engine counts on it then; it carries nothing between calls (past 2^30 units it only resets).
 */
const UNMETERED = new Meter();

/**
 * The meter of the call running now. Module-level by design: ticks come from the innermost loops
 * (pattern walks, JMESPath steps, Pod Security reads), and threading a meter through each of them
 * would cost every evaluation an argument. It is a register, not a store: evaluation is synchronous,
 * `beginInterruptible` sets it and `endInterruptible` (in a `finally`) restores the caller's, so
 * between calls it is always UNMETERED and no count or interruption outlives its call.
 */
let running: Meter = UNMETERED;

/** One unit of work (a foreach element, a list item, a container). */
export function tick(): void {
  const m = running;
  if (--m.left <= 0) checkpoint(m);
}

/** `units` units of work at once. */
export function charge(units: number): void {
  const m = running;
  m.left -= units;
  if (m.left <= 0) checkpoint(m);
}

function checkpoint(m: Meter): void {
  if (m.tripped !== undefined) throw m.tripped;
  const interruption = m.interruption;
  if (interruption === undefined) {
    m.left = UNLIMITED;
    return;
  }
  m.left = perCheck(interruption);
  try {
    interruption.check();
  } catch (e) {
    m.tripped = isInterruption(e) ? e : new EvaluationInterrupted(e instanceof Error ? e.message : String(e));
    m.left = 0;
    throw m.tripped;
  }
}

/** What `beginInterruptible` hands to `endInterruptible`: the caller's meter, restored at the end (undefined: nothing to restore). */
type InterruptibleCall = Meter | undefined;

/**
 * Makes `meter` (the engine's) count for a call made with `interruption`; returns what
 * `endInterruptible` needs. Undefined without an interruption (the call counts on the meter it runs
 * under) and for a call nested in another of the same engine (it keeps the outer interruption).
 * Pair with `endInterruptible` in a `finally`.
 */
export function beginInterruptible(meter: Meter, interruption: Interruption | undefined): InterruptibleCall {
  if (interruption === undefined || meter.inUse) return undefined;
  const outer = running;
  meter.inUse = true;
  meter.interruption = interruption;
  meter.left = perCheck(interruption) - interruption.ticks;
  meter.tripped = undefined;
  running = meter;
  return outer;
}

/** Ends what `beginInterruptible` began: restores the caller's meter; throws the interruption if it tripped during the call. */
export function endInterruptible(call: InterruptibleCall): void {
  if (call === undefined) return;
  const m = running;
  running = call;
  const stopped = m.tripped;
  const interruption = m.interruption;
  const left = m.left;
  m.inUse = false;
  m.interruption = undefined;
  m.tripped = undefined;
  m.left = UNLIMITED;
  if (stopped !== undefined) throw stopped;
  if (interruption !== undefined) interruption.ticks = Math.max(0, perCheck(interruption) - left);
}

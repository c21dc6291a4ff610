/**
 * A copy of a compiled CEL body whose programs record each evaluation: the explanation runs the
 * kind's own evaluation on the copy, so its trace is what the evaluation did (the order it reached
 * expressions, where it stopped, lazy variables when first read), never a second reading of the
 * policy that could drift from it. The copy is made only when an explanation is asked for; the
 * compiled policy is left as it is.
 *
 * A step is labelled by where its program sits in the compiled body: `matchConditions[name]`,
 * `validations[0]`, `variables[name]`, `validations[1].messageExpression`; `labels` renames a
 * compiled field to the field the policy writes (`validations` → `validate.cel.expressions`).
 */
import type { JsonValue } from "../api/json.js";
import type { CelProgram } from "../cel/types.js";
import { fromCel } from "../cel/values.js";

/** One CEL expression the evaluation ran: where it is written, its text, and what it gave or why it failed. */
interface CelStep {
  readonly at: string;
  readonly expression: string;
  /** What the expression gave; absent when it failed (`error`). */
  readonly value?: JsonValue;
  readonly error?: string;
}

/** Steps kept per body; a trace longer than this (a policy run once per parameter object, per image) says how many it left out. */
const MAX_TRACED_STEPS = 200;

export class StepRecorder {
  readonly steps: CelStep[] = [];
  omitted = 0;

  record(at: string, program: CelProgram, result: ReturnType<CelProgram["evaluate"]>): void {
    if (this.steps.length >= MAX_TRACED_STEPS) {
      this.omitted++;
      return;
    }
    const expression = program.expression.trim();
    if (!result.ok) {
      this.steps.push({ at, expression, error: result.error.message });
      return;
    }
    try {
      this.steps.push({ at, expression, value: fromCel(result.value) });
    } catch (e) {
      this.steps.push({ at, expression, error: e instanceof Error ? e.message : String(e) });
    }
  }
}

interface Tracing {
  readonly recorder: StepRecorder;
  readonly labels: Readonly<Record<string, string>>;
  readonly copies: Map<object, unknown>;
}

/** A compiled body nests a handful of levels; deeper values are data (templates, attestors) and are shared, not copied. */
const MAX_DEPTH = 8;

export function tracedBody<T>(body: T, recorder: StepRecorder, labels: Readonly<Record<string, string>> = {}): T {
  return walk(body, "", { recorder, labels, copies: new Map() }, 0) as T;
}

function walk(value: unknown, at: string, tracing: Tracing, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return value;
  const copied = tracing.copies.get(value);
  if (copied !== undefined) return copied;
  if (isProgram(value)) return remember(value, traced(value, at, tracing.recorder), tracing);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    remember(value, out, tracing);
    for (const [i, item] of value.entries()) out.push(walk(item, `${at}[${itemLabel(item, i)}]`, tracing, depth + 1));
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  remember(value, out, tracing);
  for (const [key, child] of Object.entries(value)) {
    // `{ name, program }`: the program is labelled by its entry (so is a field `labels` maps to "").
    const name = tracing.labels[key] ?? key;
    const label = key === "program" || name === "" ? at : at === "" ? name : `${at}.${name}`;
    out[key] = walk(child, label, tracing, depth + 1);
  }
  return out;
}

function remember<T>(original: object, copy: T, tracing: Tracing): T {
  tracing.copies.set(original, copy);
  return copy;
}

function itemLabel(item: unknown, index: number): string {
  if (typeof item !== "object" || item === null) return String(index);
  const { name, key } = item as { name?: unknown; key?: unknown };
  if (typeof name === "string" && name !== "") return name;
  if (typeof key === "string" && key !== "") return key;
  return String(index);
}

function isProgram(value: object): value is CelProgram {
  const v = value as Partial<CelProgram>;
  return typeof v.evaluate === "function" && typeof v.expression === "string" && typeof v.outputType === "string";
}

function traced(program: CelProgram, at: string, recorder: StepRecorder): CelProgram {
  return {
    expression: program.expression,
    outputType: program.outputType,
    evaluate(activation, budget, services) {
      const result = program.evaluate(activation, budget, services);
      recorder.record(at, program, result);
      return result;
    },
  };
}

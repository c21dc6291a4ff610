/**
 * Conditions run for an explanation: each condition Kyverno's order reaches, with its key and value
 * after substitution and what its operator said. It stops where `runConditions` stops (compile.ts),
 * so the steps are exactly the conditions the evaluation looked at. Built only when asked.
 */
import type { JsonValue } from "../api/json.js";
import type { CompiledCondition, CompiledConditions } from "./compile.js";
import type { Substitute } from "./types.js";

interface ConditionStep {
  /** Where the condition is written: `any[0]`, `all[2]`, or `[1]` in a bare list. */
  readonly at: string;
  readonly key: JsonValue;
  readonly operator: string;
  readonly value: JsonValue;
  /** What the operator said, or an error (substitution, unknown operator). */
  readonly holds: boolean | { readonly error: string };
}

export interface ConditionsTrace {
  /** Whether the conditions hold; an error stops the evaluation. */
  readonly met: boolean | { readonly error: string };
  readonly steps: readonly ConditionStep[];
}

export function traceConditions(compiled: CompiledConditions, substitute: Substitute): ConditionsTrace {
  switch (compiled.kind) {
    case "none":
      return { met: true, steps: [] };
    case "invalid":
      return { met: { error: compiled.error.error.message }, steps: [] };
    case "legacy":
      return traceList(compiled.list, substitute);
    case "any-all":
      return traceAnyAll(compiled.any, compiled.all, substitute);
  }
}

function traceList(list: readonly CompiledCondition[], substitute: Substitute): ConditionsTrace {
  const steps: ConditionStep[] = [];
  for (const [i, c] of list.entries()) {
    const step = traceOne(c, `[${i}]`, substitute);
    steps.push(step);
    if (step.holds !== true) return { met: step.holds === false ? false : step.holds, steps };
  }
  return { met: true, steps };
}

function traceAnyAll(
  anyList: readonly CompiledCondition[],
  allList: readonly CompiledCondition[],
  substitute: Substitute,
): ConditionsTrace {
  const steps: ConditionStep[] = [];
  let anyHolds = anyList.length === 0;
  for (const [i, c] of anyList.entries()) {
    const step = traceOne(c, `any[${i}]`, substitute);
    steps.push(step);
    if (typeof step.holds === "object") return { met: step.holds, steps };
    if (step.holds) {
      anyHolds = true;
      break;
    }
  }
  let allHold = true;
  for (const [i, c] of allList.entries()) {
    const step = traceOne(c, `all[${i}]`, substitute);
    steps.push(step);
    if (typeof step.holds === "object") return { met: step.holds, steps };
    if (!step.holds) {
      allHold = false;
      break;
    }
  }
  return { met: anyHolds && allHold, steps };
}

function traceOne(c: CompiledCondition, at: string, substitute: Substitute): ConditionStep {
  const base = { at, operator: c.operatorName };
  const key = c.keyFixed ? { ok: true as const, value: c.key } : substitute(c.key);
  if (!key.ok) return { ...base, key: c.key, value: c.value, holds: { error: key.error.message } };
  const value = c.valueFixed ? { ok: true as const, value: c.value } : substitute(c.value);
  if (!value.ok) return { ...base, key: key.value, value: c.value, holds: { error: value.error.message } };
  const holds =
    c.operator === undefined
      ? { error: `unknown operator ${JSON.stringify(c.operatorName)}` }
      : c.operator(key.value, value.value);
  return { ...base, key: key.value, value: value.value, holds };
}

/**
 * validate.foreach explained: per foreach entry, the list it walked, how many elements it reached
 * and how many passed, and the element that decided the rule (the first that did not pass) with
 * its deny conditions and their operands, or where its pattern failed and the value there. The
 * walk is the evaluation's own (validate-foreach.ts `walkForEach`); the rule's result is not
 * recomputed. A nested foreach shows as its element's message.
 */
import type { ForEachValidation } from "../api/policy.js";
import { traceConditions } from "../conditions/index.js";
import { walkForEach, type ForEachElementStep } from "../validate/validate-foreach.js";
import type { ValidateScope } from "../validate/types.js";
import { substituteAll } from "../variables/index.js";
import { explained } from "./explained-conditions.js";
import { failedAt } from "./pattern-failure.js";
import { preview } from "./preview.js";
import type { ForEachExplanation } from "./types.js";

export function explainForEach(list: readonly ForEachValidation[], scope: ValidateScope): ForEachExplanation[] {
  const out: ForEachExplanation[] = [];
  for (const [i, fe] of list.entries()) {
    let elements = 0;
    let passed = 0;
    let decided: ForEachElementStep | undefined;
    const ended = walkForEach(fe, { message: undefined, scope, depth: 0 }, (step) => {
      elements++;
      const status = step.outcome?.status;
      if (status === undefined || status === "skip") return true;
      if (status !== "pass") {
        decided = step;
        return false;
      }
      passed++;
      return true;
    });
    const base = { at: `foreach[${i}]`, list: fe.list, elements, passed };
    if (ended !== undefined) return [...out, { ...base, error: ended.message }];
    if (decided === undefined) {
      out.push(base);
      continue;
    }
    return [...out, { ...base, decided: decidedBy(fe, decided) }];
  }
  return out;
}

function decidedBy(fe: ForEachValidation, step: ForEachElementStep): NonNullable<ForEachExplanation["decided"]> {
  const outcome = step.outcome;
  const base = {
    index: step.index,
    element: preview(step.element),
    status: outcome?.status ?? "error",
    message: outcome?.message ?? "",
  };
  const at = step.scope;
  if (at === undefined) return base;
  if (fe.deny !== undefined) {
    const conditions = at.vars.cache.conditions(fe.deny.conditions, "deny conditions");
    return { ...base, deny: explained(traceConditions(conditions, (v) => substituteAll(v, at.vars))) };
  }
  if (outcome?.path !== undefined) return { ...base, failedAt: failedAt(at.target, fe.pattern, outcome.path) };
  return base;
}

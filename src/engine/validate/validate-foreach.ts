/**
 * validate.foreach: evaluate `list`, then validate each element with `element`/`elementIndex`
 * (and `element<N>`/`elementIndex<N>` for nesting level N) in scope. The first element that does not
 * pass ends the loop. Elements skipped by preconditions or anchors do not count as applied; if no
 * element applied, the rule gives no result.
 */
import type { ForEachValidation } from "../api/policy.js";
import { enterScope } from "../context/enter-scope.js";
import { evaluateList, withElement } from "../foreach/evaluate-list.js";
import { passOutcome } from "./messages.js";
import { runValidation } from "./run-validation.js";
import type { ValidateOutcome, ValidateScope } from "./types.js";

const MAX_DEPTH = 8;

export function validateForEach(list: readonly ForEachValidation[], message: string | undefined, scope: ValidateScope, depth: number): ValidateOutcome | undefined {
  if (depth >= MAX_DEPTH) return { status: "error", message: `foreach nesting deeper than ${MAX_DEPTH} levels in rule ${scope.ruleName}` };
  let applied = 0;
  for (const fe of list) {
    const elements = evaluateList(fe.list, scope.vars);
    if (elements.kind === "error") return { status: "error", message: `failed to evaluate list ${fe.list}: ${elements.message}` };
    if (elements.kind === "missing") continue;
    for (let index = 0; index < elements.items.length; index++) {
      const element = elements.items[index];
      if (element === null || element === undefined) continue;
      const entered = enterScope(withElement(scope.vars, element, index, depth), fe.context, fe.preconditions);
      if (entered.kind === "error" && entered.stage === "context") return { status: "error", message: entered.message };
      if (entered.kind !== "ready") continue;
      const vars = entered.vars;
      const target = fe.elementScope === false ? scope.target : element;
      const outcome = runValidation(fe, message, { ...scope, target, vars }, depth + 1);
      if (outcome === undefined || outcome.status === "skip") continue;
      if (outcome.status !== "pass") {
        return { ...outcome, message: `validation failure: ${outcome.message}` };
      }
      applied++;
    }
  }
  if (applied === 0) return undefined;
  return passOutcome(scope);
}

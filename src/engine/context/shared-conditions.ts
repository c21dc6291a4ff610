/**
 * Conditions run once per request for every rule that holds the same ones (issue 39, shared work
 * across rules): when a rule's scope reads exactly the request's base context, its preconditions or
 * deny conditions depend on that context and their text alone, so their outcome is looked up by text
 * in the request's shared outcomes (SubstitutionScope `shared`) and run only on a miss. A scope with
 * anything of its own (context entries, a foreach element, CLI values, a `{{@}}` path) reads other
 * data or substitutes differently, and runs its conditions itself.
 */
import type { Result } from "../api/result.js";
import { runConditions, type CompiledConditions, type ConditionEvaluation } from "../conditions/index.js";
import { substituteAll, type SubstitutionScope } from "../variables/index.js";
import type { SharedConditions } from "../variables/types.js";

/** The text of compiled conditions, made once per compiled object: equal texts run alike. */
const texts = new WeakMap<CompiledConditions, string>();

function textOf(compiled: CompiledConditions & { readonly kind: "legacy" | "any-all" }): string {
  let text = texts.get(compiled);
  if (text === undefined) {
    const row = (c: { key: unknown; operatorName: string; value: unknown; message: string }): unknown[] => [
      c.key,
      c.operatorName,
      c.value,
      c.message,
    ];
    text =
      compiled.kind === "legacy"
        ? JSON.stringify(["legacy", compiled.list.map(row)])
        : JSON.stringify(["any-all", compiled.any.map(row), compiled.all.map(row)]);
    texts.set(compiled, text);
  }
  return text;
}

/** `runConditions(compiled, substituteAll, scope)`, shared with the request's other rules when the scope allows it. */
export function runScopeConditions(
  compiled: CompiledConditions,
  scope: SubstitutionScope,
): Result<ConditionEvaluation> {
  const shared = scope.shared;
  if (
    shared === undefined ||
    shared.data !== scope.data ||
    shared.operation !== scope.operation ||
    scope.basePath !== undefined ||
    scope.target !== undefined ||
    scope.foreachValues !== undefined ||
    scope.deferred !== undefined
  )
    return runConditions(compiled, substituteAll, scope);
  return sharedConditionsOutcome(compiled, shared, () => scope);
}

/**
 * The outcome of `compiled` on `shared.data`, from the request's shared outcomes or, on a miss, run
 * in `scope()` and kept. `scope` must read exactly `shared.data` with `shared.operation` and hold
 * nothing of its own (no path, foreach values or failed context entries); it is only made on a miss.
 */
export function sharedConditionsOutcome(
  compiled: CompiledConditions,
  shared: SharedConditions,
  scope: () => SubstitutionScope,
): Result<ConditionEvaluation> {
  if (compiled.kind !== "legacy" && compiled.kind !== "any-all") return runConditions(compiled, substituteAll, scope());
  const text = textOf(compiled);
  let outcome = shared.outcomes.get(text);
  if (outcome === undefined) {
    outcome = runConditions(compiled, substituteAll, scope());
    shared.outcomes.set(text, outcome);
  }
  return outcome;
}

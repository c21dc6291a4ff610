/**
 * What a rule, a foreach element or a mutate target does before its handler: load its context
 * entries into the variable scope, then check its preconditions. Callers decide what a skip or an
 * error means for them (a rule result, the next element, …).
 */
import type { ContextEntry } from "../api/policy.js";
import type { CompiledConditions } from "../conditions/index.js";
import type { SubstitutionScope } from "../variables/index.js";
import { loadContextEntries } from "./load-entries.js";
import { runScopeConditions } from "./shared-conditions.js";

type ScopeOutcome =
  | { readonly kind: "ready"; readonly vars: SubstitutionScope }
  | { readonly kind: "skip"; readonly message: string }
  | { readonly kind: "error"; readonly stage: "context" | "preconditions"; readonly message: string };

/** Whether `enterScope` has nothing to do for this `context` and these `preconditions`: it would return the scope as it is. */
export function entersAsIs(context: unknown, preconditions: unknown): boolean {
  return !(Array.isArray(context) && context.length > 0) && (preconditions === undefined || preconditions === null);
}

/**
 * `context` and `preconditions` as written (absent, null or empty: nothing to do). A caller that
 * enters many scopes with the same preconditions may pass them already compiled, as `compiled`.
 */
export function enterScope(
  vars: SubstitutionScope,
  context: unknown,
  preconditions: unknown,
  compiled?: CompiledConditions,
): ScopeOutcome {
  let scope = vars;
  if (Array.isArray(context) && context.length > 0) {
    const loaded = loadContextEntries(context as readonly ContextEntry[], scope);
    if (!loaded.ok)
      return { kind: "error", stage: "context", message: `failed to load context: ${loaded.error.message}` };
    scope = { ...scope, data: loaded.value.data, deferred: loaded.value.failed };
  }
  if (preconditions !== undefined && preconditions !== null) {
    const pre = runScopeConditions(compiled ?? scope.cache.conditions(preconditions, "preconditions"), scope);
    if (!pre.ok)
      return {
        kind: "error",
        stage: "preconditions",
        message: `failed to evaluate preconditions: ${pre.error.message}`,
      };
    if (!pre.value.met) {
      const detail = pre.value.message;
      return { kind: "skip", message: detail === "" ? "preconditions not met" : `preconditions not met; ${detail}` };
    }
  }
  return { kind: "ready", vars: scope };
}

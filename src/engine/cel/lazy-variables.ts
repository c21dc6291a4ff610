/**
 * The `variables` of a CEL policy's activation, each evaluated when an expression first reads it
 * and then kept (Kubernetes' lazy composition): an unused variable costs nothing, and one that fails
 * raises its error only where it is read. Shared by ValidatingPolicy and ValidatingAdmissionPolicy.
 */
import type { CelServices } from "./kyverno/index.js";
import type { CostBudget } from "./types.js";
import type { CompiledValidatingPolicy } from "./validating-policy/compiled.js";
import type { CelRuleInput } from "./validate-rule/index.js";

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/** A policy without variables reads this one (nothing is defined per evaluation). */
const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Defines on `variables` a getter per definition; each evaluates against `activation` (which holds
 * `variables`, so a variable may read earlier ones). `failure` words a variable's error.
 */
function defineLazyVariables(
  variables: Record<string, unknown>,
  definitions: CompiledValidatingPolicy["variables"],
  activation: Record<string, unknown>,
  run: {
    readonly budget: CostBudget;
    readonly services: CelServices;
    readonly failure?: ((name: string, message: string) => string) | undefined;
  },
): void {
  const { budget, services, failure } = run;
  for (const v of definitions) {
    let done: Outcome | undefined;
    Object.defineProperty(variables, v.name, {
      enumerable: true,
      get() {
        if (done === undefined) {
          const r = v.program.evaluate(activation, budget, services);
          done = r.ok
            ? { ok: true, value: r.value }
            : { ok: false, message: failure === undefined ? r.error.message : failure(v.name, r.error.message) };
        }
        if (!done.ok) throw new Error(done.message);
        return done.value;
      },
    });
  }
}

/**
 * The activation a ValidatingPolicy's or a ValidatingAdmissionPolicy's expressions read: the
 * request's objects, `variables` (each evaluated on first read) and `extra` (`exceptions` or `params`).
 */
export function policyActivation(
  definitions: CompiledValidatingPolicy["variables"],
  input: CelRuleInput,
  run: {
    readonly extra: Readonly<Record<string, unknown>>;
    readonly budget: CostBudget;
    readonly services: CelServices;
    readonly failure?: (name: string, message: string) => string;
  },
): Record<string, unknown> {
  const variables: Record<string, unknown> = definitions.length === 0 ? NO_VARIABLES : {};
  const activation: Record<string, unknown> = {
    object: input.object,
    oldObject: input.oldObject,
    request: input.request,
    namespaceObject: input.namespaceObject,
    variables,
  };
  // (A loop, not a spread: this runs once per policy and request.)
  for (const key in run.extra) activation[key] = run.extra[key];
  if (definitions.length > 0) defineLazyVariables(variables, definitions, activation, run);
  return activation;
}

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

/**
 * Defines on `variables` a getter per definition; each evaluates against `activation` (which holds
 * `variables`, so a variable may read earlier ones). `failure` words a variable's error.
 */
function defineLazyVariables(
  variables: Record<string, unknown>,
  definitions: CompiledValidatingPolicy["variables"],
  run: {
    readonly activation: Record<string, unknown>;
    readonly budget: CostBudget;
    readonly services: CelServices;
    readonly failure?: (name: string, message: string) => string;
  },
): void {
  const { activation, budget, services, failure = (_name: string, message: string) => message } = run;
  for (const v of definitions) {
    let done: Outcome | undefined;
    Object.defineProperty(variables, v.name, {
      enumerable: true,
      get() {
        if (done === undefined) {
          const r = v.program.evaluate(activation, budget, services);
          done = r.ok ? { ok: true, value: r.value } : { ok: false, message: failure(v.name, r.error.message) };
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
  const variables: Record<string, unknown> = {};
  const activation = {
    object: input.object,
    oldObject: input.oldObject,
    request: input.request,
    namespaceObject: input.namespaceObject,
    variables,
    ...run.extra,
  };
  defineLazyVariables(variables, definitions, {
    activation,
    budget: run.budget,
    services: run.services,
    ...(run.failure === undefined ? {} : { failure: run.failure }),
  });
  return activation;
}

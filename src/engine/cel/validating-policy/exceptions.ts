/**
 * policies.kyverno.io PolicyExceptions inside a ValidatingPolicy's evaluation, as Kyverno's vpol
 * engine runs them: after matchConstraints and before the policy's matchConditions, each exception's
 * matchConditions are evaluated with `object`, `oldObject`, `request` and `namespaceObject`. A
 * matched exception without `images` or `allowedValues` exempts the request: the result is
 * `skip` (or `pass`, by the reportResult of the matched exception with the highest positive
 * `polex.kyverno.io/priority`, else the first) with rule "exception" and the message
 * "rule is skipped due to policy exception: <keys>". A matched partial exception only adds its
 * images and values to the `exceptions` variable the policy's expressions read. An exception's
 * condition error is the policy's failurePolicy's: Ignore treats it as not matched, Fail makes
 * the result an error, unless a full exemption was already found.
 */
import { ruleResult, type RuleResult } from "../../api/rule-result.js";
import type { CompiledCelException } from "../../exceptions/cel/index.js";
import type { CelServices } from "../kyverno/index.js";
import type { CelActivation, CostBudget } from "../types.js";

/** The rule name of an exception's result, as Kyverno's vpol engine reports it. */
export const EXCEPTION_RULE = "exception";

type ExceptionVerdict =
  | { readonly kind: "exempt"; readonly result: RuleResult }
  /**
   * `cause` is the conditions' errors as Kyverno's matcher joins them (cel-go's texts, "; " between);
   * `message` names the exception and the condition too.
   */
  | { readonly kind: "error"; readonly message: string; readonly cause: string }
  | { readonly kind: "evaluate"; readonly allowedImages: readonly string[]; readonly allowedValues: readonly string[] };

export function decideExceptions(
  exceptions: readonly CompiledCelException[],
  activation: CelActivation,
  failurePolicy: "Fail" | "Ignore",
  budget: CostBudget,
  services: CelServices,
): ExceptionVerdict {
  const matched: CompiledCelException[] = [];
  const allowedImages: string[] = [];
  const allowedValues: string[] = [];
  let full = false;
  for (const exception of exceptions) {
    const outcome = conditionsHold(exception, activation, budget, services);
    if (outcome.kind === "error") {
      if (full || failurePolicy === "Ignore") continue;
      return {
        kind: "error",
        message: `failed to load context: PolicyException ${exception.key}: ${outcome.message}`,
        cause: outcome.cause,
      };
    }
    if (!outcome.holds) continue;
    matched.push(exception);
    if (exception.images.length === 0 && exception.allowedValues.length === 0) full = true;
    else if (!full) {
      allowedImages.push(...exception.images);
      allowedValues.push(...exception.allowedValues);
    }
  }
  if (!full) return { kind: "evaluate", allowedImages, allowedValues };
  const keys = matched.map((e) => e.key);
  const status = decisive(matched).reportResult;
  const message = `rule is ${status === "pass" ? "passed" : "skipped"} due to policy exception: ${keys.join(", ")}`;
  return { kind: "exempt", result: { ...ruleResult(EXCEPTION_RULE, "Validation", status, message), exceptions: keys } };
}

/** All conditions true: holds; a false one: does not (errors before it are dropped, as cel's matcher does). */
function conditionsHold(
  exception: CompiledCelException,
  activation: CelActivation,
  budget: CostBudget,
  services: CelServices,
): { kind: "ok"; holds: boolean } | { kind: "error"; message: string; cause: string } {
  const errors: string[] = [];
  const causes: string[] = [];
  // A namespaced exception's conditions read as its own namespace's (services.ts authorNamespace).
  const asAuthor = exception.namespace === "" ? services : { ...services, authorNamespace: exception.namespace };
  for (const c of exception.matchConditions) {
    const r = c.program.evaluate(activation, budget, asAuthor);
    if (!r.ok) {
      errors.push(`matchConditions ${c.name}: ${r.error.message}`);
      causes.push(r.error.message);
    } else if (r.value === false) return { kind: "ok", holds: false };
    else if (r.value !== true) {
      errors.push(`matchConditions ${c.name}: did not evaluate to a bool`);
      causes.push("did not evaluate to a bool");
    }
  }
  return errors.length > 0
    ? { kind: "error", message: errors.join("; "), cause: causes.join("; ") }
    : { kind: "ok", holds: true };
}

/** The matched exception whose label priority is the highest positive integer; the first when none has one. */
function decisive(matched: readonly CompiledCelException[]): CompiledCelException {
  let chosen = matched[0] as CompiledCelException;
  let highest = 0;
  for (const e of matched) {
    if (e.priority !== undefined && e.priority > highest) {
      highest = e.priority;
      chosen = e;
    }
  }
  return chosen;
}

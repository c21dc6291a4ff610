/**
 * validate.foreach: evaluate `list`, then validate each element with `element`/`elementIndex`
 * (and `element<N>`/`elementIndex<N>` for nesting level N) in scope. The first element that does not
 * pass ends the loop. Elements skipped by preconditions or anchors do not count as applied; if no
 * element applied, the rule gives no result.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { ForEachValidation } from "../api/policy.js";
import type { CompiledConditions } from "../conditions/index.js";
import { enterScope, entersAsIs } from "../context/enter-scope.js";
import { ElementScopes } from "../foreach/element-scopes.js";
import { evaluateList } from "../foreach/evaluate-list.js";
import { FOREACH_PASS } from "./messages.js";
import { runValidation } from "./run-validation.js";
import { validateCompiledDeny } from "./validate-deny.js";
import type { ValidateOutcome, ValidateScope } from "./types.js";

const MAX_DEPTH = 8;

export function validateForEach(
  list: readonly ForEachValidation[],
  message: string | undefined,
  scope: ValidateScope,
  depth: number,
): ValidateOutcome | undefined {
  if (depth >= MAX_DEPTH)
    return { status: "error", message: `foreach nesting deeper than ${MAX_DEPTH} levels in rule ${scope.ruleName}` };
  let applied = 0;
  for (const fe of list) {
    let decided: ValidateOutcome | undefined;
    const ended = walkForEach(fe, { message, scope, depth }, (step) => {
      const outcome = step.outcome;
      if (outcome === undefined || outcome.status === "skip") return true;
      if (outcome.status !== "pass") {
        decided = { ...outcome, message: `validation failure: ${outcome.message}` };
        return false;
      }
      applied++;
      return true;
    });
    if (ended !== undefined) return ended;
    if (decided !== undefined) return decided;
  }
  if (applied === 0) return undefined;
  return FOREACH_PASS;
}

/** One element of a foreach list, validated: what validateForEach decides on, and what an explanation shows. */
export interface ForEachElementStep {
  readonly index: number;
  readonly element: JsonValue;
  /** The element's scope (element, elementIndex, its context); absent when its context or preconditions left it out. */
  readonly scope?: ValidateScope;
  /** Its deny conditions or pattern's outcome; undefined when the element does not apply. */
  readonly outcome: ValidateOutcome | undefined;
}

/**
 * Validates each element of one foreach entry in order, telling `visit` each outcome until it
 * answers false. Returns the error that ends the whole rule (the list cannot be evaluated, an
 * element's context fails, elementScope over a non-map), else undefined.
 */
export function walkForEach(
  fe: ForEachValidation,
  at: { readonly message: string | undefined; readonly scope: ValidateScope; readonly depth: number },
  visit: (step: ForEachElementStep) => boolean,
): ValidateOutcome | undefined {
  const { message, scope, depth } = at;
  const elements = evaluateList(fe.list, scope.vars);
  if (elements.kind === "error")
    return { status: "error", message: `failed to evaluate list ${fe.list}: ${elements.message}` };
  if (elements.kind === "missing" || elements.items.length === 0) return undefined;
  // Made once per list rather than per element: the element scopes, and the compiled
  // preconditions and deny conditions (an element with neither context nor preconditions
  // validates in its element scope as it is).
  const scopes = new ElementScopes(scope.vars, depth);
  const asIs = entersAsIs(fe.context, fe.preconditions);
  const preconditions =
    asIs || fe.preconditions === undefined || fe.preconditions === null
      ? undefined
      : scope.vars.cache.conditions(fe.preconditions, "preconditions");
  let deny: CompiledConditions | undefined;
  for (let index = 0; index < elements.items.length; index++) {
    const element = elements.items[index];
    if (element === null || element === undefined) continue;
    // Kyverno: an element is the rule's scope when it is a map, unless elementScope says otherwise;
    // elementScope: true over an element that is not a map is the rule's error.
    const isMap = isObject(element);
    if (fe.elementScope === true && !isMap) {
      return {
        status: "error",
        message: `failed to process foreach: cannot use elementScope=true foreach rules for elements that are not maps, expected type=map got type=${goTypeName(element)}`,
      };
    }
    let vars = scopes.at(element, index);
    if (!asIs) {
      const entered = enterScope(vars, fe.context, fe.preconditions, preconditions);
      if (entered.kind === "error" && entered.stage === "context") return { status: "error", message: entered.message };
      if (entered.kind !== "ready") {
        if (!visit({ index, element, outcome: undefined })) return undefined;
        continue;
      }
      vars = entered.vars;
    }
    const target = (fe.elementScope ?? isMap) ? element : scope.target;
    const elementScope = scopeOfElement(scope, target, vars);
    // runValidation would pick deny first too.
    const outcome =
      fe.deny !== undefined
        ? validateCompiledDeny(
            (deny ??= vars.cache.conditions(fe.deny.conditions, "deny conditions")),
            message,
            elementScope,
          )
        : runValidation(fe, message, elementScope, depth + 1);
    if (!visit({ index, element, scope: elementScope, outcome })) return undefined;
  }
  return undefined;
}

/** An element's scope: a target that is still the resource being deleted stays so; an element is not. */
function scopeOfElement(scope: ValidateScope, target: JsonValue, vars: ValidateScope["vars"]): ValidateScope {
  return { ...scope, target, vars, deleting: scope.deleting === true && target === scope.target };
}

/** The Go type name of a decoded JSON value, as Kyverno's messages print it (`%T`). */
function goTypeName(v: JsonValue): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float64"; // encoding/json decodes every number as float64
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  return v === null ? "<nil>" : "map[string]interface {}";
}

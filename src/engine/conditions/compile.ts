/**
 * Conditions compiled once per policy object: the shape is checked, each operator is looked up,
 * and keys and values that hold no variables are marked, so evaluation neither re-checks nor
 * substitutes them. Evaluation keeps Kyverno's order exactly (see evaluate.ts): key, then value,
 * then the operator, condition by condition, with the same short-circuits and messages.
 */
import type { JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { Condition } from "../api/policy.js";
import { err, ok, type EngineError, type Result } from "../api/result.js";
import { holdsNoVariables } from "../variables/inert.js";
import { isKnownOperatorName, operatorFor } from "./operators.js";
import { preparedSetOperator } from "./prepared-set.js";
import type { ConditionEvaluation, ConditionsContext, OperatorFn, Substitute, SubstituteIn } from "./types.js";

export interface CompiledCondition {
  readonly key: JsonValue;
  readonly value: JsonValue;
  /** The key or value holds no `{{ }}` or `$( )`: substitution would return it unchanged. */
  readonly keyFixed: boolean;
  readonly valueFixed: boolean;
  readonly operatorName: string;
  /** undefined: no such operator (an error when the condition is reached). */
  readonly operator: OperatorFn | undefined;
  readonly message: string;
}

export type CompiledConditions =
  | { readonly kind: "none" }
  | { readonly kind: "invalid"; readonly error: { ok: false; error: EngineError } }
  | { readonly kind: "legacy"; readonly list: readonly CompiledCondition[]; readonly messages: boolean }
  | {
      readonly kind: "any-all";
      readonly any: readonly CompiledCondition[];
      readonly all: readonly CompiledCondition[];
      readonly messages: boolean;
    };

const NONE: CompiledConditions = { kind: "none" };
const EMPTY: readonly string[] = Object.freeze([]);
/** The outcomes of conditions without messages: shared, never changed. */
const MET: { ok: true; value: ConditionEvaluation } = Object.freeze({
  ok: true,
  value: Object.freeze({ met: true, messages: EMPTY, message: "" }),
});
const NOT_MET: { ok: true; value: ConditionEvaluation } = Object.freeze({
  ok: true,
  value: Object.freeze({ met: false, messages: EMPTY, message: "" }),
});

export function compileConditions(conditions: unknown, context: ConditionsContext): CompiledConditions {
  if (conditions === null || conditions === undefined) return NONE;
  if (Array.isArray(conditions)) {
    const list = checkList(conditions, context);
    if (!list.ok) return { kind: "invalid", error: list };
    for (const c of list.value) {
      if (!isKnownOperatorName(operatorOf(c)))
        return { kind: "invalid", error: parseError(context, `invalid condition operator: ${operatorOf(c)}`) };
    }
    const compiled = list.value.map(compileCondition);
    return { kind: "legacy", list: compiled, messages: compiled.some((c) => c.message !== "") };
  }
  if (!isObject(conditions)) {
    return {
      kind: "invalid",
      error: parseError(context, "conditions must be a list, or a map with `any` and/or `all` lists"),
    };
  }
  const anyList = checkList((conditions as { any?: unknown }).any ?? [], context, "any");
  if (!anyList.ok) return { kind: "invalid", error: anyList };
  const allList = checkList((conditions as { all?: unknown }).all ?? [], context, "all");
  if (!allList.ok) return { kind: "invalid", error: allList };
  const any = anyList.value.map(compileCondition);
  const all = allList.value.map(compileCondition);
  return { kind: "any-all", any, all, messages: [...any, ...all].some((c) => c.message !== "") };
}

function compileCondition(c: Condition): CompiledCondition {
  const key = c.key ?? null;
  const value = c.value ?? null;
  const operatorName = operatorOf(c);
  const valueFixed = holdsNoVariables(value);
  return {
    key,
    value,
    keyFixed: holdsNoVariables(key),
    valueFixed,
    operatorName,
    // A set operator against a list fixed in the policy stringifies the list once, here.
    operator: (valueFixed ? preparedSetOperator(operatorName, value) : undefined) ?? operatorFor(operatorName),
    message: typeof c.message === "string" ? c.message : "",
  };
}

/**
 * Runs compiled conditions. `substitute` is called with each key and value that holds variables,
 * and with `context` as its second argument, so a caller can pass a module function and its scope
 * (`runConditions(c, substituteAll, scope)`) instead of making a closure per call.
 */
export function runConditions(compiled: CompiledConditions, substitute: Substitute): Result<ConditionEvaluation>;
export function runConditions<C>(
  compiled: CompiledConditions,
  substitute: SubstituteIn<C>,
  context: C,
): Result<ConditionEvaluation>;
export function runConditions(
  compiled: CompiledConditions,
  substitute: SubstituteIn<unknown>,
  context?: unknown,
): Result<ConditionEvaluation> {
  switch (compiled.kind) {
    case "none":
      return MET;
    case "invalid":
      return compiled.error;
    case "legacy":
      return runLegacy(compiled.list, compiled.messages, substitute, context);
    case "any-all":
      return runAnyAll(compiled.any, compiled.all, compiled.messages, substitute, context);
  }
}

/** `{any, all}`: see evaluate.ts. Message lists are only built when some condition has a message. */
function runAnyAll(
  anyList: readonly CompiledCondition[],
  allList: readonly CompiledCondition[],
  withMessages: boolean,
  substitute: SubstituteIn<unknown>,
  context: unknown,
): Result<ConditionEvaluation> {
  const passed: string[] | undefined = withMessages ? [] : undefined;
  const failed: string[] | undefined = withMessages ? [] : undefined;
  let anyHolds = anyList.length === 0;
  for (const c of anyList) {
    const v = holds(c, substitute, context);
    if (v !== true && v !== false) return v;
    if (v) {
      anyHolds = true;
      passed?.push(c.message);
      break;
    }
    failed?.push(c.message);
  }
  let allHold = true;
  for (const c of allList) {
    const v = holds(c, substitute, context);
    if (v !== true && v !== false) return v;
    if (!v) {
      allHold = false;
      failed?.push(c.message);
      break;
    }
    passed?.push(c.message);
  }
  const met = anyHolds && allHold;
  if (passed === undefined || failed === undefined) return met ? MET : NOT_MET;
  return ok(conditionOutcome(met, met ? passed : failed, "; "));
}

function runLegacy(
  list: readonly CompiledCondition[],
  withMessages: boolean,
  substitute: SubstituteIn<unknown>,
  context: unknown,
): Result<ConditionEvaluation> {
  const passed: string[] = [];
  for (const c of list) {
    const v = holds(c, substitute, context);
    if (v !== true && v !== false) return v;
    if (!v) {
      if (!withMessages) return NOT_MET;
      // Kyverno returns the failed condition's message as is.
      return ok({ met: false, messages: c.message === "" ? [] : [c.message], message: c.message });
    }
    if (withMessages) passed.push(c.message);
  }
  return withMessages ? ok(conditionOutcome(true, passed, ";")) : MET;
}

/** Substitutes one condition's key and value, then applies its operator. */
function holds(
  c: CompiledCondition,
  substitute: SubstituteIn<unknown>,
  context: unknown,
): boolean | { ok: false; error: EngineError } {
  let key = c.key;
  if (!c.keyFixed) {
    const r = substitute(key, context);
    if (!r.ok)
      return err("variable-substitution", `failed to substitute variables in condition key: ${r.error.message}`);
    key = r.value;
  }
  let value = c.value;
  if (!c.valueFixed) {
    const r = substitute(value, context);
    if (!r.ok)
      return err("variable-substitution", `failed to substitute variables in condition value: ${r.error.message}`);
    value = r.value;
  }
  if (c.operator === undefined) {
    return err(
      "condition-operator",
      `failed to create handler for condition operator: unknown operator ${JSON.stringify(c.operatorName)}`,
    );
  }
  return c.operator(key, value);
}

function operatorOf(c: Condition): string {
  return typeof c.operator === "string" ? c.operator : "";
}

/** The decisive messages, without empty ones, joined as Kyverno joins them. */
export function conditionOutcome(met: boolean, messages: readonly string[], separator: string): ConditionEvaluation {
  const nonEmpty = messages.filter((m) => m !== "");
  return { met, messages: nonEmpty, message: nonEmpty.join(separator) };
}

function checkList(list: unknown, context: string, block?: string): Result<readonly Condition[]> {
  const where = block === undefined ? "" : ` under \`${block}\``;
  if (!Array.isArray(list)) return parseError(context, `the conditions${where} must be a list`);
  for (const item of list as unknown[]) {
    if (!isObject(item))
      return parseError(context, `each condition${where} must be a map with key, operator and value`);
  }
  return ok(list as Condition[]);
}

function parseError(context: string, reason: string): { ok: false; error: EngineError } {
  return err("conditions-parse", `failed to parse ${context}: ${reason}`);
}

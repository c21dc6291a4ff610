/**
 * Preconditions and deny conditions (`pkg/engine/variables/evaluate.go`, `engine/internal/preconditions.go`).
 *
 * `{any, all}`: (no `any` block, or some `any` condition true) AND (every `all` condition true).
 * `any` stops at the first true condition and `all` at the first false one, but both blocks are
 * always evaluated, so an error in `all` surfaces even when `any` already failed. An empty `any`
 * list counts as no `any` block. A bare list (legacy form) means "all"; there every operator must
 * be spelled exactly, or the conditions fail to parse.
 *
 * Each condition has its key, then its value, substituted before the operator is looked up;
 * the first failure is returned as an error.
 */
import { isObject } from "../api/json.js";
import type { AnyAllConditions, Condition, Conditions } from "../api/policy.js";
import { err, ok, type Result } from "../api/result.js";
import { isKnownOperatorName, operatorFor } from "./operators.js";
import type { ConditionEvaluation, EvaluateOptions, Substitute } from "./types.js";

interface Verdict {
  readonly holds: boolean;
  readonly message: string;
}

export function evaluateConditions(
  conditions: Conditions | null | undefined,
  substitute: Substitute,
  options: EvaluateOptions = {},
): Result<ConditionEvaluation> {
  const context = options.context ?? "preconditions";
  if (conditions === null || conditions === undefined) return ok(outcome(true, [], "; "));
  if (Array.isArray(conditions)) {
    const list = checkList(conditions, context);
    if (!list.ok) return list;
    for (const c of list.value) {
      if (!isKnownOperatorName(operatorOf(c))) {
        return parseError(context, `invalid condition operator: ${operatorOf(c)}`);
      }
    }
    return evaluateLegacy(list.value, substitute);
  }
  if (!isObject(conditions)) {
    return parseError(context, "conditions must be a list, or a map with `any` and/or `all` lists");
  }
  const anyList = checkList((conditions as { any?: unknown }).any ?? [], context, "any");
  if (!anyList.ok) return anyList;
  const allList = checkList((conditions as { all?: unknown }).all ?? [], context, "all");
  if (!allList.ok) return allList;
  return evaluateAnyAll(anyList.value, allList.value, substitute);
}

/**
 * A list of `{any, all}` blocks that must all hold (Kyverno's `EvaluateAnyAllConditions`, used by
 * verifyImages attestation conditions). Stops at the first block that does not hold and reports
 * its messages; when every block holds, their messages are joined with ";".
 */
export function evaluateConditionBlocks(
  blocks: readonly AnyAllConditions[],
  substitute: Substitute,
  options: EvaluateOptions = {},
): Result<ConditionEvaluation> {
  const passed: string[] = [];
  for (const block of blocks) {
    const r = evaluateConditions(isObject(block) ? block : {}, substitute, options);
    if (!r.ok || !r.value.met) return r;
    if (r.value.message !== "") passed.push(r.value.message);
  }
  return ok(outcome(true, passed, ";"));
}

function evaluateAnyAll(anyList: readonly Condition[], allList: readonly Condition[], substitute: Substitute): Result<ConditionEvaluation> {
  const passed: string[] = [];
  const failed: string[] = [];
  let anyHolds = anyList.length === 0;
  for (const c of anyList) {
    const v = evaluateCondition(c, substitute);
    if (!v.ok) return v;
    if (v.value.holds) {
      anyHolds = true;
      passed.push(v.value.message);
      break;
    }
    failed.push(v.value.message);
  }
  let allHold = true;
  for (const c of allList) {
    const v = evaluateCondition(c, substitute);
    if (!v.ok) return v;
    if (!v.value.holds) {
      allHold = false;
      failed.push(v.value.message);
      break;
    }
    passed.push(v.value.message);
  }
  const met = anyHolds && allHold;
  return ok(outcome(met, met ? passed : failed, "; "));
}

function evaluateLegacy(list: readonly Condition[], substitute: Substitute): Result<ConditionEvaluation> {
  const passed: string[] = [];
  for (const c of list) {
    const v = evaluateCondition(c, substitute);
    if (!v.ok) return v;
    if (!v.value.holds) {
      // Kyverno returns the failed condition's message as is.
      const messages = v.value.message === "" ? [] : [v.value.message];
      return ok({ met: false, messages, message: v.value.message });
    }
    passed.push(v.value.message);
  }
  return ok(outcome(true, passed, ";"));
}

/** Substitutes one condition's key and value, then applies its operator. */
export function evaluateCondition(c: Condition, substitute: Substitute): Result<Verdict> {
  const key = substitute(c.key ?? null);
  if (!key.ok) return err("variable-substitution", `failed to substitute variables in condition key: ${key.error.message}`);
  const value = substitute(c.value ?? null);
  if (!value.ok) return err("variable-substitution", `failed to substitute variables in condition value: ${value.error.message}`);
  const name = operatorOf(c);
  const op = operatorFor(name);
  if (op === undefined) {
    return err("condition-operator", `failed to create handler for condition operator: unknown operator ${JSON.stringify(name)}`);
  }
  return ok({ holds: op(key.value, value.value), message: typeof c.message === "string" ? c.message : "" });
}

function operatorOf(c: Condition): string {
  return typeof c.operator === "string" ? c.operator : "";
}

function outcome(met: boolean, messages: readonly string[], separator: string): ConditionEvaluation {
  const nonEmpty = messages.filter((m) => m !== "");
  return { met, messages: nonEmpty, message: nonEmpty.join(separator) };
}

function checkList(list: unknown, context: string, block?: string): Result<readonly Condition[]> {
  const where = block === undefined ? "" : ` under \`${block}\``;
  if (!Array.isArray(list)) return parseError(context, `the conditions${where} must be a list`);
  for (const item of list as unknown[]) {
    if (!isObject(item)) return parseError(context, `each condition${where} must be a map with key, operator and value`);
  }
  return ok(list as Condition[]);
}

function parseError(context: string, reason: string): ReturnType<typeof err> {
  return err("conditions-parse", `failed to parse ${context}: ${reason}`);
}

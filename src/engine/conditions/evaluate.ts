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
import type { AnyAllConditions, Conditions } from "../api/policy.js";
import { ok, type Result } from "../api/result.js";
import { compileConditions, conditionOutcome, runConditions, type CompiledConditions } from "./compile.js";
import type { ConditionEvaluation, EvaluateOptions, Substitute } from "./types.js";

/** Evaluates conditions as written. A policy's own conditions are better compiled once (compile.ts) and run. */
export function evaluateConditions(
  conditions: Conditions | null | undefined,
  substitute: Substitute,
  options: EvaluateOptions = {},
): Result<ConditionEvaluation> {
  return runConditions(compileConditions(conditions, options.context ?? "preconditions"), substitute);
}

/**
 * A list of `{any, all}` blocks that must all hold (Kyverno's `EvaluateAnyAllConditions`, used by
 * verifyImages attestation conditions). Stops at the first block that does not hold and reports
 * its messages; when every block holds, their messages are joined with ";". `compile` gives a
 * block's compiled form (a policy's own blocks: the scope's cache, so they compile once).
 */
export function evaluateConditionBlocks(
  blocks: readonly AnyAllConditions[],
  substitute: Substitute,
  options: EvaluateOptions = {},
  compile: (block: AnyAllConditions) => CompiledConditions = (block) =>
    compileConditions(block, options.context ?? "preconditions"),
): Result<ConditionEvaluation> {
  const passed: string[] = [];
  for (const block of blocks) {
    const r = runConditions(compile(isObject(block) ? block : {}), substitute);
    if (!r.ok || !r.value.met) return r;
    if (r.value.message !== "") passed.push(r.value.message);
  }
  return ok(conditionOutcome(true, passed, ";"));
}

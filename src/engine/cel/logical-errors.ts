/**
 * `||` and `&&` report errors as cel-go does (ADR 0010). Both evaluate to their short-circuit value
 * when either side has it, whatever the other side does (an error included); otherwise an error
 * on both sides reports the left one's, where cel-js reports the right one's. The messages Kyverno
 * users see (and compare with Kyverno's) name the first failure of the expression as written.
 */
import { type CelNode, resolvedEvaluate, setEvaluate } from "./ast-nodes.js";
import { isInterruption } from "../interrupt/index.js";

/** The evaluator methods these operators call (cel-js's Evaluator). */
interface Evaluator {
  tryEval(node: unknown, ctx: unknown): unknown;
  createError(code: string, message: string, node: unknown): Error;
  debugRuntimeType(value: unknown): string;
}

export function celGoLogicalErrors(nodes: readonly CelNode[]): void {
  for (const node of nodes) {
    if (node.op !== "||" && node.op !== "&&") continue;
    if (!Array.isArray(node.args) || node.args.length !== 2) continue;
    const [left, right] = node.args as [unknown, unknown];
    const decisive = node.op === "||";
    const original = resolvedEvaluate(node);
    setEvaluate(node, function (this: CelNode, ev, ast, ctx) {
      const e = ev as Evaluator;
      const l = evaluated(e, left, ctx);
      if (l === decisive) return decisive;
      const r = evaluated(e, right, ctx);
      if (r === decisive) return decisive;
      if (typeof l === "boolean" && typeof r === "boolean") return !decisive;
      if (l instanceof Promise || r instanceof Promise) return original.call(this, ev, ast, ctx);
      throw operandError(e, typeof l === "boolean" ? [r, right] : [l, left]);
    });
  }
}

/** A side's value, or the error it threw; an interruption (the caller's deadline) is never absorbed. */
function evaluated(ev: Evaluator, node: unknown, ctx: unknown): unknown {
  const v = ev.tryEval(node, ctx);
  if (isInterruption(v)) throw v;
  return v;
}

function operandError(ev: Evaluator, [value, node]: [unknown, unknown]): Error {
  if (value instanceof Error) return value;
  return ev.createError(
    "invalid_logical_operand",
    `Logical operator requires bool operands, got '${ev.debugRuntimeType(value)}'`,
    node,
  );
}

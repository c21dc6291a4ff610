/**
 * Compile once, evaluate many: parse and check an expression, bind its function calls, and
 * return a `CompiledExpression` whose `search` only walks the tree.
 */
import type { JsonValue } from "../api/json.js";
import { checkTreeDepth, childrenOf, type Node } from "./ast.js";
import { isInterruption } from "../interrupt/index.js";
import { limitError, normalizeError, unknownKeyError } from "./errors.js";
import { EvalState, ExprRef, MISSING, type Outcome } from "./eval-state.js";
import type { BoundFunction } from "./function-call.js";
import { compileNode, type Evaluator } from "./evaluator.js";
import type { JmesPathLimits } from "./limits.js";
import { parse } from "./parser.js";
import type { CompiledExpression, FunctionContext } from "./types.js";

interface CompileOptions {
  readonly limits: JmesPathLimits;
  readonly resolve: (name: string) => BoundFunction | undefined;
}

/** Whether an `&expr` could end up in the result (anywhere but a function's expref argument). */
function mayLeakExpRef(root: Node): boolean {
  const stack: Node[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.type === "ExpRef") return true;
    if (node.type === "Function") {
      node.args.forEach((arg, i) => {
        const types = node.fn?.specs[Math.min(i, node.fn.specs.length - 1)]?.types;
        const consumed = types !== undefined && types.length === 1 && types[0] === "expref";
        stack.push(arg.type === "ExpRef" && consumed ? arg.child : arg);
      });
      continue;
    }
    for (const child of childrenOf(node)) stack.push(child);
  }
  return false;
}

/** Go encodes an expression reference as `{}`; so does the result of a search. */
function sanitize(v: unknown): JsonValue {
  if (v instanceof ExprRef) return {};
  if (Array.isArray(v)) return v.map(sanitize);
  if (v !== null && typeof v === "object") {
    const out: Record<string, JsonValue> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, { value: sanitize(x), writable: true, enumerable: true, configurable: true });
    return out;
  }
  return v as JsonValue;
}

class Compiled implements CompiledExpression {
  private readonly evaluate: Evaluator;

  constructor(
    readonly source: string,
    readonly ast: Node,
    private readonly limits: JmesPathLimits,
    private readonly leaks: boolean,
  ) {
    this.evaluate = compileNode(ast);
  }

  search(data: JsonValue, ctx: FunctionContext): JsonValue {
    const st = new EvalState(ctx.ports, this.limits, ctx.memo);
    let out: Outcome;
    try {
      out = this.evaluate(data, st);
    } catch (e) {
      if (isInterruption(e)) throw e;
      throw normalizeError(e);
    }
    if (out === MISSING) throw unknownKeyError(st.missingKey);
    return this.leaks ? sanitize(out) : (out as JsonValue);
  }
}

/** Compiles `expression`. Throws `JmesPathError` of kind "syntax" or "limit". */
export function compileExpression(
  expression: string,
  opts: CompileOptions,
): CompiledExpression & { readonly ast: Node } {
  const { limits } = opts;
  if (expression.length > limits.maxExpressionLength) {
    throw limitError(
      `JMESPath expression is ${expression.length} characters long; the limit is ${limits.maxExpressionLength}`,
    );
  }
  let ast: Node;
  try {
    ast = parse(expression, { maxDepth: limits.maxDepth, resolve: opts.resolve });
  } catch (e) {
    throw normalizeError(e);
  }
  checkTreeDepth(ast, limits.maxDepth);
  return new Compiled(expression, ast, limits, mayLeakExpRef(ast));
}

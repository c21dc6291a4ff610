/**
 * The two ways the JMESPath evaluator runs a field chain `a.b.c`: in one closure (evaluator.ts
 * `fields`), or as its subexpression tree, one closure per node. The tree way is reached by
 * retagging every Subexpression node as an IndexExpression: the evaluator compiles both kinds with
 * the same tree code, and it only recognises chains of Subexpression nodes.
 */
import type { JsonValue } from "../../src/engine/api/json.js";
import type { Node } from "../../src/engine/jmespath/ast.js";
import { compileExpression } from "../../src/engine/jmespath/compile.js";
import { EvalState, MISSING } from "../../src/engine/jmespath/eval-state.js";
import { compileNode, type Evaluator } from "../../src/engine/jmespath/evaluator.js";
import { bindFunction, type BoundFunction } from "../../src/engine/jmespath/function-call.js";
import { builtinFunctions } from "../../src/engine/jmespath/functions/builtin/index.js";
import { kyvernoFunctions } from "../../src/engine/jmespath/functions/kyverno/index.js";
import type { JmesPathLimits } from "../../src/engine/jmespath/limits.js";
import type { EnginePorts } from "../../src/engine/ports.js";

const table = new Map<string, BoundFunction>();
for (const def of [...builtinFunctions, ...kyvernoFunctions()]) table.set(def.name, bindFunction(def));

/** The tree as parsed, with field chains left for the chain closure. */
export function parseExpression(expression: string, limits: JmesPathLimits): Node {
  return compileExpression(expression, { limits, resolve: (name) => table.get(name) }).ast;
}

/** The same tree with every Subexpression retagged, so no field chain is recognised. */
export function withoutChains(node: Node): Node {
  switch (node.type) {
    case "Subexpression":
    case "IndexExpression":
      return { type: "IndexExpression", left: withoutChains(node.left), right: withoutChains(node.right) };
    case "Projection":
    case "ValueProjection":
    case "Or":
    case "And":
    case "Pipe":
      return { type: node.type, left: withoutChains(node.left), right: withoutChains(node.right) };
    case "Comparator":
      return { type: "Comparator", op: node.op, left: withoutChains(node.left), right: withoutChains(node.right) };
    case "FilterProjection":
      return { type: "FilterProjection", left: withoutChains(node.left), right: withoutChains(node.right), condition: withoutChains(node.condition) };
    case "Flatten":
    case "Not":
    case "ExpRef":
      return { type: node.type, child: withoutChains(node.child) };
    case "MultiSelectList":
      return { type: "MultiSelectList", children: node.children.map(withoutChains) };
    case "MultiSelectHash":
      return { type: "MultiSelectHash", pairs: node.pairs.map((p) => ({ key: p.key, value: withoutChains(p.value) })) };
    case "Function":
      return { type: "Function", name: node.name, fn: node.fn, args: node.args.map(withoutChains) };
    default:
      return node;
  }
}

/** Both evaluators of one expression: `chains` as the engine compiles it, `tree` without chains. */
export function bothWays(expression: string, limits: JmesPathLimits): { readonly chains: Evaluator; readonly tree: Evaluator } {
  const ast = parseExpression(expression, limits);
  return { chains: compileNode(ast), tree: compileNode(withoutChains(ast)) };
}

/** What one evaluation gave: the value, the missing key, or the error; and the steps it cost. */
export type Run =
  | { readonly value: JsonValue; readonly steps: number }
  | { readonly missing: string; readonly steps: number }
  | { readonly error: string; readonly steps: number };

export function run(evaluate: Evaluator, data: JsonValue, ports: EnginePorts, limits: JmesPathLimits): Run {
  const st = new EvalState(ports, limits);
  try {
    const out = evaluate(data, st);
    if (out === MISSING) return { missing: st.missingKey, steps: st.steps };
    return { value: JSON.parse(JSON.stringify(out ?? null)) as JsonValue, steps: st.steps };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e), steps: st.steps };
  }
}

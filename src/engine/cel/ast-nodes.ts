/**
 * The few cel-js AST internals Bylaw relies on, typed in one place: a node's `op`/`args`, its
 * public `meta` (macro expansion and the node the checker chose to run instead) and its
 * `evaluate` slot. cel-js is pinned to an exact version; cel-internals.test.ts fails if any of
 * this changes shape.
 */
type EvaluateFn = (this: CelNode, ev: unknown, ast: CelNode, ctx: unknown) => unknown;

interface CelNodeMeta {
  readonly evaluate: EvaluateFn;
  readonly alternate?: CelNode;
  readonly macro?: CelMacro;
}

interface CelMacro {
  readonly receiver?: CelNode;
  readonly arg?: CelNode;
  evaluate(ev: unknown, macro: CelMacro, ctx: unknown): unknown;
}

export interface CelNode {
  readonly op: string;
  readonly args: unknown;
  readonly pos: number;
  readonly meta: CelNodeMeta;
  evaluate: EvaluateFn;
}

export function isCelNode(v: unknown): v is CelNode {
  return typeof v === "object" && v !== null && typeof (v as { op?: unknown }).op === "string" && "meta" in v;
}

/** Every node reachable from `root`: arguments, macro parts, checker alternates; each once. */
export function allNodes(root: CelNode): CelNode[] {
  const seen = new Set<object>();
  const out: CelNode[] = [];
  const visit = (v: unknown): void => {
    if (typeof v !== "object" || v === null || seen.has(v)) return;
    seen.add(v);
    if (isCelNode(v)) {
      out.push(v);
      visit(v.args);
      visit(v.meta.alternate);
      visit(v.meta.macro);
      return;
    }
    if (Array.isArray(v)) {
      for (const item of v) visit(item);
      return;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return;
    for (const item of Object.values(v)) visit(item);
  };
  visit(root);
  return out;
}

/** The function a node runs, as cel-js would resolve it on first evaluation. */
export function resolvedEvaluate(node: CelNode): EvaluateFn {
  const { alternate, macro, evaluate } = node.meta;
  if (alternate !== undefined) return (ev, _ast, ctx) => alternate.evaluate(ev, alternate, ctx);
  if (macro !== undefined) return (ev, _ast, ctx) => macro.evaluate(ev, macro, ctx);
  return evaluate;
}

/** Replaces the function a node runs (cel-js `setMeta("evaluate", …)`), before the node is first run or metered. */
export function setEvaluate(node: CelNode, evaluate: EvaluateFn): void {
  (node as unknown as { setMeta(key: string, value: unknown): unknown }).setMeta("evaluate", evaluate);
}

/**
 * `has(e.f)` where `e` is any expression, as the CEL spec and cel-go allow (Kyverno's policies
 * write `has(image.GetMetadata(x).config.Volumes)`); cel-js 8 accepts only a select chain that
 * starts at an identifier. For such a chain this fills in the macro's parts (which cel-js's own
 * evaluation walks: the root expression, then each field) and type-checks the root expression
 * itself. Runs after parsing, before checking.
 *
 * It also gives `has()` on a protocol buffer message's field cel-go's answer: whether the field is
 * set (proto3 presence), not whether it can be read (every field of such a message can: an unset one
 * reads as its default). A value that knows its fields' presence implements FIELD_PRESENCE; it is
 * asked only when the checker typed the chain's root as a message (so never for `object` of a
 * Kubernetes policy, which is dyn).
 */
import { isCelNode, type CelNode } from "./ast-nodes.js";

/** `value[FIELD_PRESENCE](field)`: whether a message's field is set, for `has(value.field)`. */
export const FIELD_PRESENCE = Symbol("CEL field presence");

interface Presence {
  [FIELD_PRESENCE](field: string): boolean;
}

function knowsPresence(v: unknown): v is Presence {
  return typeof v === "object" && v !== null && FIELD_PRESENCE in v;
}

interface HasMacro {
  args: unknown;
  macroHasProps?: CelNode[];
  evaluate: (ev: { run(node: CelNode, ctx: unknown): unknown }, macro: HasMacro, ctx: unknown) => unknown;
  typeCheck: (
    checker: { check(node: CelNode, ctx: unknown): unknown; getType(name: string): unknown },
    macro: HasMacro,
    ctx: unknown,
  ) => unknown;
}

function hasMacro(n: CelNode): HasMacro | undefined {
  const m = n.meta.macro as unknown;
  if (n.op !== "call" || !Array.isArray(n.args) || n.args[0] !== "has") return undefined;
  if (typeof m !== "object" || m === null || typeof (m as { typeCheck?: unknown }).typeCheck !== "function")
    return undefined;
  return m as HasMacro;
}

export function hasOnAnyExpression(nodes: readonly CelNode[]): void {
  for (const n of nodes) {
    const macro = hasMacro(n);
    if (macro !== undefined) withPresence(macro);
    const first = macro !== undefined && Array.isArray(macro.args) ? (macro.args[0] as unknown) : undefined;
    if (macro === undefined || !isCelNode(first) || first.op !== ".") continue;
    const props: CelNode[] = [];
    let node: CelNode = first;
    while ((node.op === "." || node.op === ".?") && Array.isArray(node.args) && isCelNode(node.args[0])) {
      props.push(node);
      node = node.args[0];
    }
    if (node.op === "id") continue;
    const root = node;
    props.push(root);
    macro.macroHasProps = props;
    macro.typeCheck = (checker, _m, ctx) => {
      checker.check(root, ctx);
      return checker.getType("bool");
    };
  }
}

/** cel-js's evaluator, as the has() macro walks a select chain with it. */
interface MacroEvaluator {
  run(node: CelNode, ctx: unknown): unknown;
  debugType(v: unknown): { fieldLazy(obj: unknown, key: string, node: CelNode, ev: MacroEvaluator): unknown };
}

/**
 * `has()` asks a message that knows its fields' presence (see the file's comment). The chain's
 * intermediate values are read again as cel-js's macro reads them (the checker left those nodes
 * without an evaluation of their own); a chain with `.?` keeps cel-js's answer.
 */
function withPresence(macro: HasMacro): void {
  const evaluate = macro.evaluate;
  macro.evaluate = (ev, m, ctx) => {
    const found = evaluate(ev, m, ctx);
    const props = m.macroHasProps ?? [];
    // The checker types only the chain's root: a message root (not dyn) is what may hold such messages.
    const root = props.at(-1) as (CelNode & { checkedType?: { kind?: unknown } }) | undefined;
    if (found !== true || root?.checkedType?.kind !== "message" || props.some((p) => p.op === ".?")) return found;
    const evaluator = ev as unknown as MacroEvaluator;
    let parent = evaluator.run(root, ctx);
    for (let i = props.length - 2; i >= 1; i--) {
      const node = props[i] as CelNode & { args: [unknown, string] };
      parent = evaluator.debugType(parent).fieldLazy(parent, node.args[1], node, evaluator);
    }
    const field = (props[0]?.args as [unknown, unknown] | undefined)?.[1];
    return knowsPresence(parent) && typeof field === "string" ? parent[FIELD_PRESENCE](field) : found;
  };
}

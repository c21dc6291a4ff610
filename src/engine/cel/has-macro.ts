/**
 * `has(e.f)` where `e` is any expression, as the CEL spec and cel-go allow (Kyverno's policies
 * write `has(image.GetMetadata(x).config.Volumes)`); cel-js 8 accepts only a select chain that
 * starts at an identifier. For such a chain this fills in the macro's parts (which cel-js's own
 * evaluation walks: the root expression, then each field) and type-checks the root expression
 * itself. Runs after parsing, before checking.
 */
import { isCelNode, type CelNode } from "./ast-nodes.js";

interface HasMacro {
  args: unknown;
  macroHasProps?: CelNode[];
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

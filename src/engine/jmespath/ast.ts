/**
 * The syntax tree: a tagged union, compiled to closures by evaluator.ts. Node kinds follow
 * go-jmespath's AST (ASTField, ASTProjection, ...) so `formatAst` can print the same tree as
 * `kyverno jp parse`.
 */
import type { JsonValue } from "../api/json.js";
import { limitError } from "./errors.js";
import type { BoundFunction } from "./function-call.js";

export type ComparatorOp = "==" | "!=" | "<" | "<=" | ">" | ">=";

export interface KeyValPair {
  readonly key: string;
  readonly value: Node;
}

export type Node =
  /** `name`. `guarded` when the name could also be found on a prototype (e.g. `toString`). */
  | { readonly type: "Field"; readonly name: string; readonly guarded: boolean }
  /** `@` */
  | { readonly type: "Current" }
  /** The implicit "this value" on the right of projections and filters. */
  | { readonly type: "Identity" }
  /** A backtick JSON literal or a 'raw string'. Deeply frozen. */
  | { readonly type: "Literal"; readonly value: JsonValue }
  | { readonly type: "Subexpression"; readonly left: Node; readonly right: Node }
  | { readonly type: "IndexExpression"; readonly left: Node; readonly right: Node }
  | { readonly type: "Index"; readonly index: number }
  | {
      readonly type: "Slice";
      readonly start: number | null;
      readonly stop: number | null;
      readonly step: number | null;
    }
  /** `left[*] right`, `left[] right` (left is then a Flatten), `left[a:b] right`. */
  | { readonly type: "Projection"; readonly left: Node; readonly right: Node }
  /** `left.* right`: projects the values of an object. */
  | { readonly type: "ValueProjection"; readonly left: Node; readonly right: Node }
  | { readonly type: "FilterProjection"; readonly left: Node; readonly right: Node; readonly condition: Node }
  | { readonly type: "Flatten"; readonly child: Node }
  | { readonly type: "MultiSelectList"; readonly children: readonly Node[] }
  | { readonly type: "MultiSelectHash"; readonly pairs: readonly KeyValPair[] }
  | { readonly type: "Comparator"; readonly op: ComparatorOp; readonly left: Node; readonly right: Node }
  | { readonly type: "Or"; readonly left: Node; readonly right: Node }
  | { readonly type: "And"; readonly left: Node; readonly right: Node }
  | { readonly type: "Not"; readonly child: Node }
  | { readonly type: "Pipe"; readonly left: Node; readonly right: Node }
  /** `name(args)`. `fn` is the function bound at compile time, absent when the name is unknown. */
  | {
      readonly type: "Function";
      readonly name: string;
      readonly args: readonly Node[];
      readonly fn: BoundFunction | undefined;
    }
  /** `&expr` */
  | { readonly type: "ExpRef"; readonly child: Node }
  /** What go-jmespath's parser leaves for some malformed `[...]`; evaluating it is an error. */
  | { readonly type: "Empty" };

/** The direct children of a node, in go-jmespath's order. */
export function childrenOf(node: Node): readonly Node[] {
  switch (node.type) {
    case "Subexpression":
    case "IndexExpression":
    case "Projection":
    case "ValueProjection":
    case "Comparator":
    case "Or":
    case "And":
    case "Pipe":
      return [node.left, node.right];
    case "FilterProjection":
      return [node.left, node.right, node.condition];
    case "Flatten":
    case "Not":
    case "ExpRef":
      return [node.child];
    case "MultiSelectList":
      return node.children;
    case "MultiSelectHash":
      return node.pairs.map((p) => p.value);
    case "Function":
      return node.args;
    default:
      return [];
  }
}

/**
 * Throws a "limit" error when the tree is deeper than `maxDepth`. Iterative, because chains like
 * `a.b.c...` and `a || b || c...` nest to the left without deepening the parser's recursion.
 */
export function checkTreeDepth(root: Node, maxDepth: number): void {
  const stack: [Node, number][] = [[root, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (depth > maxDepth) throw limitError(`JMESPath expression is nested deeper than ${maxDepth} levels`);
    for (const child of childrenOf(node)) stack.push([child, depth + 1]);
  }
}

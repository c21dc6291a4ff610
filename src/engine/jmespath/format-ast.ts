/**
 * A readable dump of the syntax tree in go-jmespath's PrettyPrint layout (what `kyverno jp parse`
 * prints), for `bylaw jp parse`. One difference: slices print their bounds (`[]*int{1, nil, nil}`)
 * where Go prints pointer addresses.
 */
import { checkTreeDepth, childrenOf, type Node } from "./ast.js";
import { limitError } from "./errors.js";
import { goFormatFloat, goSyntaxValue } from "../go/format-value.js";
import { goQuote } from "../go/quote.js";
import { DEFAULT_LIMITS, type JmesPathLimits } from "./limits.js";
import { parse } from "./parser.js";

const GO_NAMES: Readonly<Record<Node["type"], string>> = {
  Field: "ASTField",
  Current: "ASTCurrentNode",
  Identity: "ASTIdentity",
  Literal: "ASTLiteral",
  Subexpression: "ASTSubexpression",
  IndexExpression: "ASTIndexExpression",
  Index: "ASTIndex",
  Slice: "ASTSlice",
  Projection: "ASTProjection",
  ValueProjection: "ASTValueProjection",
  FilterProjection: "ASTFilterProjection",
  Flatten: "ASTFlatten",
  MultiSelectList: "ASTMultiSelectList",
  MultiSelectHash: "ASTMultiSelectHash",
  Comparator: "ASTComparator",
  Or: "ASTOrExpression",
  And: "ASTAndExpression",
  Not: "ASTNotExpression",
  Pipe: "ASTPipe",
  Function: "ASTFunctionExpression",
  ExpRef: "ASTExpRef",
  Empty: "ASTEmpty",
};

const COMPARATOR_TOKENS: Readonly<Record<string, string>> = {
  "==": "tEQ",
  "!=": "tNE",
  "<": "tLT",
  "<=": "tLTE",
  ">": "tGT",
  ">=": "tGTE",
};

function sliceBound(n: number | null): string {
  return n === null ? "nil" : String(n);
}

/** The `value:` line of a node, or undefined when go-jmespath prints none. */
function valueOf(node: Node): string | undefined {
  switch (node.type) {
    case "Field":
      return goQuote(node.name);
    case "Function":
      return goQuote(node.name);
    case "Literal":
      return node.value === null ? undefined : goSyntaxValue(node.value);
    case "Index":
      return goFormatFloat(node.index);
    case "Slice":
      return `[]*int{${sliceBound(node.start)}, ${sliceBound(node.stop)}, ${sliceBound(node.step)}}`;
    case "Comparator":
      return COMPARATOR_TOKENS[node.op];
    default:
      return undefined;
  }
}

/** One node, with go-jmespath's layout (its `children: {` block is never closed). */
function pretty(node: Node, indent: number, out: string[]): void {
  const pad = " ".repeat(indent);
  const inner = " ".repeat(indent + 2);
  out.push(`${pad}${GO_NAMES[node.type]} {\n`);
  const value = valueOf(node);
  if (value !== undefined) out.push(`${inner}value: ${value}\n`);
  if (node.type === "MultiSelectHash") {
    if (node.pairs.length > 0) out.push(`${inner}children: {\n`);
    for (const pair of node.pairs) {
      const pairPad = " ".repeat(indent + 4);
      out.push(`${pairPad}ASTKeyValPair {\n${pairPad}  value: ${goQuote(pair.key)}\n${pairPad}  children: {\n`);
      pretty(pair.value, indent + 8, out);
      out.push(`${pairPad}}\n`);
    }
  } else {
    const children = childrenOf(node);
    if (children.length > 0) out.push(`${inner}children: {\n`);
    for (const child of children) pretty(child, indent + 4, out);
  }
  out.push(`${pad}}\n`);
}

/** Parses `expression` and returns its syntax tree as text. Throws `JmesPathError` on bad syntax. */
export function formatAst(expression: string, limits: JmesPathLimits = DEFAULT_LIMITS): string {
  if (expression.length > limits.maxExpressionLength) {
    throw limitError(
      `JMESPath expression is ${expression.length} characters long; the limit is ${limits.maxExpressionLength}`,
    );
  }
  const ast = parse(expression, { maxDepth: limits.maxDepth });
  checkTreeDepth(ast, limits.maxDepth);
  return formatNode(ast);
}

function formatNode(node: Node): string {
  const out: string[] = [];
  pretty(node, 0, out);
  return out.join("");
}

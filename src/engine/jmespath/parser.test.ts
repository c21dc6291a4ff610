import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { childrenOf, type Node } from "./ast.js";
import { JmesPathSyntaxError } from "./errors.js";
import { parse } from "./parser.js";
import { JmesPathError } from "./types.js";

/** A compact S-expression of the tree, to pin precedence and node kinds. */
function shape(node: Node): string {
  switch (node.type) {
    case "Field":
      return node.name;
    case "Literal":
      return JSON.stringify(node.value);
    case "Index":
      return `[${node.index}]`;
    case "Slice":
      return `[${node.start ?? ""}:${node.stop ?? ""}:${node.step ?? ""}]`;
    case "Current":
      return "@";
    case "Identity":
      return "id";
    case "Comparator":
      return `(${node.op} ${shape(node.left)} ${shape(node.right)})`;
    case "Function":
      return `(${[`${node.name}()`, ...node.args.map(shape)].join(" ")})`;
    case "MultiSelectHash":
      return `(hash ${node.pairs.map((p) => `${p.key}=${shape(p.value)}`).join(" ")})`;
    default:
      return `(${node.type} ${childrenOf(node).map(shape).join(" ")})`.replace(/ \)$/, ")");
  }
}

function parsed(expression: string): string {
  return shape(parse(expression, { maxDepth: 64 }));
}

describe("precedence and tree shapes", () => {
  const rows: readonly [string, string][] = [
    ["a.b.c", "(Subexpression (Subexpression a b) c)"],
    ["a || b && c", "(Or a (And b c))"],
    ["a && b || c", "(Or (And a b) c)"],
    ["a | b || c", "(Pipe a (Or b c))"],
    ["a == b || c", "(Or (== a b) c)"],
    ["!a == b", "(== (Not a) b)"],
    // `!` binds tighter than `.` in go-jmespath (45 vs 40): this is (!a).b
    ["!a.b", "(Subexpression (Not a) b)"],
    ["!(a.b)", "(Not (Subexpression a b))"],
    ["a[*].b", "(Projection a b)"],
    ["a[*].b.c", "(Projection a (Subexpression b c))"],
    ["a[*].b | c", "(Pipe (Projection a b) c)"],
    ["a[*] || b", "(Or (Projection a id) b)"],
    ["a[].b", "(Projection (Flatten a) b)"],
    ["a[?b == `1`].c", "(FilterProjection a c (== b 1))"],
    ["a[?b][]", "(Projection (Flatten (FilterProjection a id b)) id)"],
    ["a.*.b", "(ValueProjection a b)"],
    ["*", "(ValueProjection id id)"],
    ["a[0]", "(IndexExpression a [0])"],
    ["a[1:2]", "(Projection (IndexExpression a [1:2:]) id)"],
    ["[::-1]", "(Projection (IndexExpression id [::-1]) id)"],
    ["a[*][0]", "(Projection a (IndexExpression id [0]))"],
    ["[a, b]", "(MultiSelectList a b)"],
    ["a.[b]", "(Subexpression a (MultiSelectList b))"],
    ["{x: a, y: b}", "(hash x=a y=b)"],
    ["{x: a y: b}", "(hash x=a y=b)"],
    ["f(a, b)", "(f() a b)"],
    ["f(a b)", "(f() a b)"],
    ["f(a,)", "(f() a)"],
    ["f()", "(f())"],
    ["a.f(@)", "(Subexpression a (f() @))"],
    ["'length'(@)", "(length() @)"],
    ["sort_by(@, &a.b)", "(sort_by() @ (ExpRef (Subexpression a b)))"],
    ["&a | b", "(ExpRef (Pipe a b))"],
    ["(a || b).c", "(Subexpression (Or a b) c)"],
    ["a[-1]", "(IndexExpression a [-1])"],
    // a later number overwrites the slot (go-jmespath does not check for colons between numbers)
    ["a[1:2 3]", "(Projection (IndexExpression a [1:3:]) id)"],
  ];
  for (const [expression, expected] of rows) {
    test(expression, () => assert.equal(parsed(expression), expected));
  }
});

describe("syntax errors carry go-jmespath's texts", () => {
  const rows: readonly [string, string][] = [
    ["", "SyntaxError: Incomplete expression"],
    ["foo.", "SyntaxError: Expected identifier, lbracket, or lbrace"],
    ["foo[", "SyntaxError: Expected tStar, received: tEOF"],
    ["a[1 2:3]", "SyntaxError: Expected tRbracket, received: tNumber"],
    ["foo[bar]", "SyntaxError: Expected tStar, received: tUnquotedIdentifier"],
    ["split(element,'/')[null]", "SyntaxError: Expected tStar, received: tUnquotedIdentifier"],
    ["foo bar", "SyntaxError: Unexpected token at the end of the expression: tUnquotedIdentifier"],
    ["foo]", "SyntaxError: Unexpected token at the end of the expression: tRbracket"],
    ["foo =", "SyntaxError: Unexpected token at the end of the expression: tUnknown"],
    ["foo *", "SyntaxError: Unexpected token: tStar"],
    ["foo {a: b}", "SyntaxError: Unexpected token: tLbrace"],
    ["a.b.c)", "SyntaxError: Unexpected token at the end of the expression: tRparen"],
    ["(a", "SyntaxError: Expected tRparen, received: tEOF"],
    [",", "SyntaxError: Invalid token: tComma"],
    ["1", "SyntaxError: Invalid token: tNumber"],
    ["[a b]", "SyntaxError: Expected tComma, received: tUnquotedIdentifier"],
    ["{1: a}", "SyntaxError: Expected tQuotedIdentifier or tUnquotedIdentifier"],
    ["{a b}", "SyntaxError: Expected tColon, received: tUnquotedIdentifier"],
    ['"foo"(@)', "SyntaxError: Can't have quoted identifier as function name."],
    ["foo[1:2:3:4]", "SyntaxError: Expected tRbracket, received: tNumber"],
    ["foo[1:a]", "SyntaxError: Expected tColon or tNumber, received: tUnquotedIdentifier"],
    ["foo[*]{a: b}", "SyntaxError: Error"],
    ["foo[-]", 'strconv.Atoi: parsing "-": invalid syntax'],
    ["foo[99999999999999999999]", 'strconv.Atoi: parsing "99999999999999999999": value out of range'],
    ["`foo`", "invalid character 'o' in literal false (expecting 'a')"],
    ["`{a: 1}`", "invalid character 'a' looking for beginning of object key string"],
    ["`[1,]`", "invalid character ']' looking for beginning of value"],
    ["``", "unexpected end of JSON input"],
    ["`1e400`", "json: cannot unmarshal number 1e400 into Go value of type float64"],
    ["`1`(@)", "SyntaxError: Invalid function name: only an identifier can be called"],
  ];
  for (const [expression, message] of rows) {
    test(JSON.stringify(expression), () => {
      assert.throws(
        () => parse(expression, { maxDepth: 64 }),
        (e: unknown) => e instanceof JmesPathError && e.kind === "syntax" && e.message === message,
      );
    });
  }

  test("an error knows where it happened", () => {
    try {
      parse("foo[bar]", { maxDepth: 64 });
      assert.fail("expected a syntax error");
    } catch (e) {
      assert.ok(e instanceof JmesPathSyntaxError);
      assert.equal(e.highlight(), "foo[bar]\n    ^");
    }
  });

  test("a bare [1 parses (go-jmespath drops the error) to a node that fails when evaluated", () => {
    assert.equal(parse("[1", { maxDepth: 64 }).type, "Empty");
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatAst } from "./format-ast.js";
import { JmesPathError } from "./types.js";

describe("formatAst prints go-jmespath's PrettyPrint layout", () => {
  test("a sub-expression", () => {
    assert.equal(
      formatAst("foo.bar"),
      [
        "ASTSubexpression {",
        "  children: {",
        "    ASTField {",
        '      value: "foo"',
        "    }",
        "    ASTField {",
        '      value: "bar"',
        "    }",
        "}",
        "",
      ].join("\n"),
    );
  });

  test("comparators show their token, literals their Go value, functions their name", () => {
    const out = formatAst("length(a[?b == `1`])");
    assert.match(out, /^ASTFunctionExpression \{\n {2}value: "length"\n/);
    assert.match(out, /ASTComparator \{\n\s+value: tEQ\n/);
    assert.match(out, /ASTLiteral \{\n\s+value: 1\n/);
    assert.match(out, /ASTFilterProjection \{/);
  });

  test("hash pairs, slices, indexes and exprefs", () => {
    const out = formatAst("{k: a[1:2], i: b[-1], e: &c}");
    assert.match(out, /ASTKeyValPair \{\n\s+value: "k"/);
    assert.match(out, /ASTSlice \{\n\s+value: \[\]\*int\{1, 2, nil\}/);
    assert.match(out, /ASTIndex \{\n\s+value: -1/);
    assert.match(out, /ASTExpRef \{/);
  });

  test("a null literal prints no value line; an object literal prints as a Go map", () => {
    assert.equal(formatAst("`null`"), "ASTLiteral {\n}\n");
    assert.equal(
      formatAst('`{"b": [1], "a": "x"}`'),
      'ASTLiteral {\n  value: map[string]interface {}{"a":"x", "b":[]interface {}{1}}\n}\n',
    );
  });

  test("bad syntax throws", () => {
    assert.throws(() => formatAst("foo["), JmesPathError);
  });
});

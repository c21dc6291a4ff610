import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { tokenize } from "./lexer.js";
import { tokName } from "./tokens.js";
import { JmesPathError } from "./types.js";

function kinds(expression: string): string {
  return tokenize(expression)
    .map((t) => `${tokName(t.type)}(${t.value})`)
    .join(" ");
}

describe("tokens", () => {
  const rows: readonly [string, string][] = [
    ["foo.bar", "tUnquotedIdentifier(foo) tDot(.) tUnquotedIdentifier(bar) tEOF()"],
    ["a_1 _b", "tUnquotedIdentifier(a_1) tUnquotedIdentifier(_b) tEOF()"],
    ["[?a]", "tFilter([?) tUnquotedIdentifier(a) tRbracket(]) tEOF()"],
    ["[]", "tFlatten([]) tEOF()"],
    ["[ ]", "tLbracket([) tRbracket(]) tEOF()"],
    ["a||b|c", "tUnquotedIdentifier(a) tOr(||) tUnquotedIdentifier(b) tPipe(|) tUnquotedIdentifier(c) tEOF()"],
    ["a&&&b", "tUnquotedIdentifier(a) tAnd(&&) tExpref(&) tUnquotedIdentifier(b) tEOF()"],
    ["<<=>>= == = != !", "tLT(<) tLTE(<=) tGT(>) tGTE(>=) tEQ(==) tUnknown(=) tNE(!=) tNot(!) tEOF()"],
    ["-12 3", "tNumber(-12) tNumber(3) tEOF()"],
    ["-", "tNumber(-) tEOF()"],
    ["1.5", "tNumber(1) tDot(.) tNumber(5) tEOF()"],
    ["@,:{}()*", "tCurrent(@) tComma(,) tColon(:) tLbrace({) tRbrace(}) tLparen(() tRparen()) tStar(*) tEOF()"],
    ['"a b"', "tQuotedIdentifier(a b) tEOF()"],
    ['"\\n"', "tQuotedIdentifier(\n) tEOF()"],
    ["'x\\'y'", "tStringLiteral(x'y) tEOF()"],
    ["'a\\b'", "tStringLiteral(a\\b) tEOF()"],
    ["`[1]`", "tJSONLiteral([1]) tEOF()"],
    ["`a\\`b`", "tJSONLiteral(a`b) tEOF()"],
    [" \t\r\nfoo", "tUnquotedIdentifier(foo) tEOF()"],
  ];
  for (const [expression, expected] of rows) {
    test(JSON.stringify(expression), () => assert.equal(kinds(expression), expected));
  }
});

describe("lexical errors", () => {
  const rows: readonly [string, string][] = [
    ["foo#", "SyntaxError: Unknown char: '#'"],
    ["$", "SyntaxError: Unknown char: '$'"],
    ["a/b", "SyntaxError: Unknown char: '/'"],
    ["é", "SyntaxError: Unknown char: '\\u00e9'"],
    ["😀", "SyntaxError: Unknown char: '\\U0001f600'"],
    ["a\u000bb", "SyntaxError: Unknown char: '\\v'"],
    ["\\", "SyntaxError: Unknown char: '\\\\'"],
    ['"abc', 'SyntaxError: Unclosed delimiter: "'],
    ["'abc", "SyntaxError: Unclosed delimiter: '"],
    ["'abc\\'", "SyntaxError: Unclosed delimiter: '"],
    ["`abc", "SyntaxError: Unclosed delimiter: `"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
  ];
  for (const [expression, message] of rows) {
    test(JSON.stringify(expression), () => {
      assert.throws(
        () => tokenize(expression),
        (e: unknown) => e instanceof JmesPathError && e.kind === "syntax" && e.message === message,
      );
    });
  }
});

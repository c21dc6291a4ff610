import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { goJsonQuoteChar, goQuote, goQuoteRuneToAscii } from "./quote.js";
import { codePointLength, compareCodePoints, reverseCodePoints } from "./strings.js";

describe("Go string order and length", () => {
  test("compareCodePoints orders like Go (UTF-8 bytes), not like UTF-16", () => {
    assert.equal(compareCodePoints("a", "b"), -1);
    assert.equal(compareCodePoints("b", "a"), 1);
    assert.equal(compareCodePoints("ab", "ab"), 0);
    assert.equal(compareCodePoints("a", "ab"), -1);
    assert.equal(compareCodePoints("\uFF61", "😀"), -1);
    assert.equal(compareCodePoints("😀", "\uFF61"), 1);
    assert.equal(compareCodePoints("\u00e9", "😀"), -1);
  });

  test("codePointLength and reverseCodePoints work on code points", () => {
    assert.equal(codePointLength("a😀é"), 3);
    assert.equal(codePointLength(""), 0);
    assert.equal(reverseCodePoints("a😀é"), "é😀a");
  });
});

describe("Go quoting", () => {
  test("goQuote is strconv.Quote", () => {
    assert.equal(goQuote('a"b\\c\n'), '"a\\"b\\\\c\\n"');
    assert.equal(goQuote("é\u0001\u00ad"), '"é\\x01\\u00ad"');
  });

  test("goQuoteRuneToAscii is strconv.QuoteRuneToASCII", () => {
    assert.equal(goQuoteRuneToAscii(0x23), "'#'");
    assert.equal(goQuoteRuneToAscii(0x27), "'\\''");
    assert.equal(goQuoteRuneToAscii(0xe9), "'\\u00e9'");
    assert.equal(goQuoteRuneToAscii(0x1f600), "'\\U0001f600'");
    assert.equal(goQuoteRuneToAscii(0x7f), "'\\x7f'");
  });

  test("goJsonQuoteChar is encoding/json's quoteChar", () => {
    assert.equal(goJsonQuoteChar(0x27), "'\\''");
    assert.equal(goJsonQuoteChar(0x22), "'\"'");
    assert.equal(goJsonQuoteChar(0x0a), "'\\n'");
    assert.equal(goJsonQuoteChar(0x78), "'x'");
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { GoJsonEncodeError, goJsonMarshal } from "./json-encode.js";

describe("goJsonMarshal encodes like Go's json.Marshal", () => {
  const rows: readonly [unknown, string][] = [
    [null, "null"],
    [true, "true"],
    [1, "1"],
    [-0, "-0"],
    [1.5, "1.5"],
    [1e21, "1e+21"],
    [123456789012, "123456789012"],
    [1e-7, "1e-7"],
    [0.000001, "0.000001"],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ["<&>", '"\\u003c\\u0026\\u003e"'],
    ["\u2028\u2029", '"\\u2028\\u2029"'],
    ["\n\r\t\b\f\u0001", '"\\n\\r\\t\\b\\f\\u0001"'],
    ["é😀", '"é😀"'],
    ["\ud800x", '"\\ufffdx"'],
    [[1, "a", [null]], '[1,"a",[null]]'],
    [{ b: 1, a: { d: 2, c: 3 } }, '{"a":{"c":3,"d":2},"b":1}'],
    [{ "\uFF61": 1, "😀": 2 }, '{"\uFF61":1,"😀":2}'],
    [[], "[]"],
    [{}, "{}"],
  ];
  for (const [value, expected] of rows) {
    test(expected, () => assert.equal(goJsonMarshal(value), expected));
  }

  test("NaN and infinities are unsupported values", () => {
    assert.throws(
      () => goJsonMarshal([NaN]),
      (e: unknown) => e instanceof GoJsonEncodeError && e.message === "json: unsupported value: NaN",
    );
    assert.throws(
      () => goJsonMarshal(-Infinity),
      (e: unknown) => e instanceof GoJsonEncodeError && e.message === "json: unsupported value: -Inf",
    );
  });

  test("output past maxLength stops early", () => {
    assert.throws(
      () => goJsonMarshal(["aaaa", "bbbb"], 8),
      (e: unknown) => e instanceof GoJsonEncodeError && e.reason === "too-long",
    );
    assert.equal(goJsonMarshal(["aaaa"], 8), '["aaaa"]');
  });
});

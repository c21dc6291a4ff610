import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { GoJsonEncodeError, goJson, goJsonMarshal, goJsonNumber, goJsonString } from "./json-encode.js";

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

describe("goJson writes JSON as Kyverno's encoder does", () => {
  const cases: [JsonValue, string][] = [
    [null, "null"],
    [true, "true"],
    [3, "3"],
    [1.5, "1.5"],
    [-0, "-0"],
    [1e21, "1e+21"],
    [1e-7, "1e-7"],
    [0.000001, "0.000001"],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ["<b>&</b>", '"\\u003cb\\u003e\\u0026\\u003c/b\\u003e"'],
    ["\n\r\t\b\f\u0001", '"\\n\\r\\t\\u0008\\u000c\\u0001"'],
    ["\u2028\u2029é", '"\\u2028\\u2029é"'],
    [["a", 1, null], '["a",1,null]'],
    [{ b: 1, a: { d: [], c: {} } }, '{"a":{"c":{},"d":[]},"b":1}'],
    [{ Z: 1, a: 2, "": 3 }, '{"":3,"Z":1,"a":2}'],
  ];
  for (const [value, text] of cases) {
    test(`${JSON.stringify(value)} → ${text}`, () => assert.equal(goJson(value), text));
  }
});

describe("the json-iterator dialect", () => {
  test("writes NaN and infinities as null rather than failing", () => {
    assert.equal(goJsonNumber(NaN, "json-iterator"), "null");
    assert.equal(goJsonNumber(Infinity, "json-iterator"), "null");
  });
  test("differs from encoding/json only in \\b and \\f", () => {
    assert.equal(goJsonString("\b\f<", "json-iterator"), '"\\u0008\\u000c\\u003c"');
    assert.equal(goJsonString("\b\f<"), '"\\b\\f\\u003c"');
  });
});

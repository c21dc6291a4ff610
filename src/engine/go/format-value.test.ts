import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { goFormatFloat, goFormatValue, goSyntaxValue } from "./format-value.js";

describe("goFormatFloat prints %v of a float64", () => {
  const rows: readonly [number, string][] = [
    [0, "0"],
    [-0, "-0"],
    [1, "1"],
    [1.5, "1.5"],
    [123456, "123456"],
    [1000000, "1e+06"],
    [1234567, "1.234567e+06"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1e100, "1e+100"],
    [-2.5e-10, "-2.5e-10"],
    [NaN, "NaN"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
  ];
  for (const [n, expected] of rows) test(expected, () => assert.equal(goFormatFloat(n), expected));
});

describe("goFormatValue prints %v of decoded JSON", () => {
  const rows: readonly [unknown, string][] = [
    [null, "<nil>"],
    ["text", "text"],
    [true, "true"],
    [[1, "a", null], "[1 a <nil>]"],
    [{ b: 1, a: [2] }, "map[a:[2] b:1]"],
    [[], "[]"],
    [{}, "map[]"],
  ];
  for (const [v, expected] of rows) test(expected, () => assert.equal(goFormatValue(v), expected));
});

describe("goSyntaxValue prints %#v", () => {
  const rows: readonly [Parameters<typeof goSyntaxValue>[0], string][] = [
    ['a"b', '"a\\"b"'],
    [1, "1"],
    [[1, "x", null], '[]interface {}{1, "x", interface {}(nil)}'],
    [{ b: true, a: 1 }, 'map[string]interface {}{"a":1, "b":true}'],
  ];
  for (const [v, expected] of rows) test(expected, () => assert.equal(goSyntaxValue(v), expected));
});

describe("goFormatFloat: more float64 texts (strconv 'g', shortest)", () => {
  const cases: [number, string][] = [
    [5, "5"],
    [-5, "-5"],
    [100000, "100000"],
    [999999, "999999"],
    [123456.7, "123456.7"],
    [123456.5, "123456.5"],
    [1234567.5, "1.2345675e+06"],
    [1e21, "1e+21"],
    [0.000123, "0.000123"],
    [1.5e-7, "1.5e-07"],
    [0.1 + 0.2, "0.30000000000000004"],
    [-2.5e6, "-2.5e+06"],
  ];
  for (const [input, want] of cases) test(`${input} prints as ${want}`, () => assert.equal(goFormatFloat(input), want));
});

describe("goFormatValue with float64 numbers (set operators, variable messages, JMESPath errors)", () => {
  const cases: [JsonValue | undefined, string][] = [
    [false, "false"],
    [undefined, "<nil>"],
    [42, "42"],
    [100000, "100000"],
    [1e6, "1e+06"],
    [1234567, "1.234567e+06"],
    [0.00001, "1e-05"],
    [["a", 1], "[a 1]"],
    [{ b: 1, a: "x" }, "map[a:x b:1]"],
    [{ z: [1, 2], m: { k: true } }, "map[m:map[k:true] z:[1 2]]"],
    [{ B: 1, a: 2, "\u{1f600}": 3, "\uffff": 4 }, "map[B:1 a:2 \uffff:4 \u{1f600}:3]"],
  ];
  for (const [input, want] of cases)
    test(`${JSON.stringify(input)} → ${want}`, () => assert.equal(goFormatValue(input), want));
  test("a value that is not decoded JSON prints as an empty struct", () =>
    assert.equal(goFormatValue(new Map([["a", 1]])), "{}"));
});

describe("goFormatValue with int64 whole numbers (pattern messages)", () => {
  const cases: [JsonValue | undefined, string][] = [
    [42, "42"],
    [1e6, "1000000"],
    [1e18, "1000000000000000000"],
    [2.5, "2.5"],
    [1234567.5, "1.2345675e+06"],
    [null, "<nil>"],
    [["a", 1e6, [2]], "[a 1000000 [2]]"],
    [{ b: { c: 1e7 }, a: 1 }, "map[a:1 b:map[c:10000000]]"],
  ];
  for (const [input, want] of cases)
    test(`${JSON.stringify(input)} → ${want}`, () => assert.equal(goFormatValue(input, "int64-when-whole"), want));
  test("whole numbers beyond int64 stay float64", () => assert.equal(goFormatValue(1e19, "int64-when-whole"), "1e+19"));
});

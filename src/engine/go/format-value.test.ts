import { describe, test } from "node:test";
import assert from "node:assert/strict";
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
    ["a\"b", '"a\\"b"'],
    [1, "1"],
    [[1, "x", null], '[]interface {}{1, "x", interface {}(nil)}'],
    [{ b: true, a: 1 }, 'map[string]interface {}{"a":1, "b":true}'],
  ];
  for (const [v, expected] of rows) test(expected, () => assert.equal(goSyntaxValue(v), expected));
});

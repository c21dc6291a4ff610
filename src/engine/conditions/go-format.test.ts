import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { goSprint } from "./go-format.js";
import { goFormatFloat as formatGoFloat } from "../go/format-value.js";
import { compareCodePoints } from "../go/strings.js";

describe("formatGoFloat (Go %v of a float64)", () => {
  const cases: [number, string][] = [
    [0, "0"],
    [5, "5"],
    [-5, "-5"],
    [1.5, "1.5"],
    [100000, "100000"],
    [999999, "999999"],
    [1000000, "1e+06"],
    [1234567, "1.234567e+06"],
    [123456.7, "123456.7"],
    [1e21, "1e+21"],
    [1e100, "1e+100"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [0.000123, "0.000123"],
    [1.5e-7, "1.5e-07"],
    [0.1 + 0.2, "0.30000000000000004"],
    [-2.5e6, "-2.5e+06"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
  ];
  for (const [input, want] of cases) {
    test(`${input} prints as ${want}`, () => assert.equal(formatGoFloat(input), want));
  }
});

describe("goSprint (fmt.Sprint of JSON values)", () => {
  const cases: [JsonValue, string][] = [
    ["text", "text"],
    [true, "true"],
    [false, "false"],
    [null, "<nil>"],
    [42, "42"],
    [[1, "a", null], "[1 a <nil>]"],
    [[], "[]"],
    [{ b: 1, a: "x" }, "map[a:x b:1]"],
    [{ z: [1, 2], m: { k: true } }, "map[m:map[k:true] z:[1 2]]"],
  ];
  for (const [input, want] of cases) {
    test(`${JSON.stringify(input)} → ${want}`, () => assert.equal(goSprint(input), want));
  }
});

test("map keys sort by code point, as Go sorts strings", () => {
  assert.ok(compareCodePoints("B", "a") < 0);
  assert.ok(compareCodePoints("\uffff", "\u{1f600}") < 0); // UTF-16 order would say the opposite
  assert.equal(compareCodePoints("ab", "ab"), 0);
  assert.ok(compareCodePoints("ab", "a") > 0);
});

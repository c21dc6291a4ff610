import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { goParseFloat } from "./parse-float.js";

describe("goParseFloat follows strconv.ParseFloat", () => {
  const rows: readonly [string, number | undefined][] = [
    ["1", 1],
    ["-1.5", -1.5],
    ["+2", 2],
    [".5", 0.5],
    ["1.", 1],
    ["1e3", 1000],
    ["1E-2", 0.01],
    ["1_000.5", 1000.5],
    ["0x1p-2", 0.25],
    ["0x1.8p1", 3],
    ["-0X10P0", -16],
    ["inf", Infinity],
    ["-Infinity", -Infinity],
    ["+INF", Infinity],
    ["1e-400", 0],
    ["", undefined],
    [" 1", undefined],
    ["1 ", undefined],
    ["abc", undefined],
    ["1e", undefined],
    ["0x10", undefined],
    ["_1", undefined],
    ["1__0", undefined],
    ["1_", undefined],
    ["infin", undefined],
    ["+nan", undefined],
    ["1e400", undefined],
    ["Infinityx", undefined],
  ];
  for (const [text, expected] of rows) test(JSON.stringify(text), () => assert.equal(goParseFloat(text), expected));

  test("NaN in any case", () => {
    assert.ok(Number.isNaN(goParseFloat("nan")));
    assert.ok(Number.isNaN(goParseFloat("NaN")));
  });
});

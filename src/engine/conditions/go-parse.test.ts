import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isValidJson, unmarshalStringArray } from "./go-parse.js";
import { goParseFloat as parseGoFloat } from "../go/parse-float.js";

describe("parseGoFloat (strconv.ParseFloat)", () => {
  const cases: [string, number | undefined][] = [
    ["5", 5],
    ["-5.25", -5.25],
    ["+3", 3],
    ["1.", 1],
    [".5", 0.5],
    ["1e3", 1000],
    ["1E-2", 0.01],
    ["Inf", Infinity],
    ["-infinity", -Infinity],
    ["0x1p-2", 0.25],
    ["0x1.8p1", 3],
    ["1e400", undefined], // out of range is an error in Go
    ["", undefined],
    [".", undefined],
    ["1_000", 1000], // Go accepts underscores between digits (strconv atof_test: "1_23.50_0_0e+1_2" → 1.235e+14)
    ["1__000", undefined],
    ["_1000", undefined],
    ["0x10", undefined], // hexadecimal needs a p exponent
    ["5s", undefined],
    [" 5", undefined],
    ["infin", undefined],
  ];
  for (const [input, want] of cases) {
    test(`${JSON.stringify(input)} → ${want}`, () => assert.equal(parseGoFloat(input), want));
  }
  test("NaN is accepted", () => assert.ok(Number.isNaN(parseGoFloat("nan"))));
});

describe("JSON helpers", () => {
  test("json.Valid", () => {
    assert.equal(isValidJson('["a"]'), true);
    assert.equal(isValidJson("5"), true);
    assert.equal(isValidJson("abc"), false);
    assert.equal(isValidJson("['a']"), false);
  });
  test("unmarshal into []string", () => {
    assert.deepEqual(unmarshalStringArray('["a", "b"]'), ["a", "b"]);
    assert.deepEqual(unmarshalStringArray("null"), []);
    assert.deepEqual(unmarshalStringArray('["a", null]'), ["a", ""]);
    assert.equal(unmarshalStringArray("[1]"), undefined);
    assert.equal(unmarshalStringArray('"a"'), undefined);
    assert.equal(unmarshalStringArray("a"), undefined);
    assert.equal(unmarshalStringArray('{"a":"b"}'), undefined);
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { numericOperator, type Comparison } from "./numeric.js";

const ops: Comparison[] = ["GreaterThan", "GreaterThanOrEquals", "LessThan", "LessThanOrEquals"];

// [key, value, [>, >=, <, <=], why]
type Row = [JsonValue, JsonValue, [boolean, boolean, boolean, boolean], string];
const GT: [boolean, boolean, boolean, boolean] = [true, true, false, false];
const EQ: [boolean, boolean, boolean, boolean] = [false, true, false, true];
const LT: [boolean, boolean, boolean, boolean] = [false, false, true, true];
const NONE: [boolean, boolean, boolean, boolean] = [false, false, false, false];

const rows: Row[] = [
  // number keys
  [5, 3, GT, "numbers"],
  [3, 3, EQ, "equal numbers"],
  [2.5, 3, LT, "floats"],
  [5, "3", GT, "string value read as a float"],
  [5, "3.5", GT, "string float value"],
  [5, "10s", LT, "string duration value: the number is seconds"],
  [120, "1m", GT, "two minutes vs one"],
  [60.9, "1m", EQ, "fractional seconds are dropped"],
  [5, "abc", NONE, "unreadable string value"],
  [5, true, NONE, "bool value"],
  [5, [1], NONE, "list value"],
  // string keys: durations
  ["1h", "30m", GT, "durations"],
  ["90s", 90, EQ, "duration key, seconds value"],
  ["1m", 30, GT, "duration key, seconds value"],
  ["10", "1h", LT, "numeric string key against a duration"],
  // quantities
  ["2Gi", "1Gi", GT, "quantities"],
  ["1Gi", "1024Mi", EQ, "quantities of different scales"],
  ["500m", "1", LT, "milli quantity"],
  ["100Mi", "1G", LT, "binary vs decimal"],
  // floats
  ["10", "9", GT, "numeric strings are quantities"],
  ["10", 9, GT, "numeric string key, number value"],
  ["1.5", 2, LT, "float string key"],
  ["1e3", 999, GT, "exponent string key"],
  // semver
  ["1.4.1", "1.4.0", GT, "semver"],
  ["1.10.0", "1.9.0", GT, "semver compares numerically"],
  ["1.0.0-alpha", "1.0.0", LT, "pre-release sorts first"],
  ["1.0.0+build1", "1.0.0+build2", EQ, "build metadata is ignored"],
  ["1.4.1", 1, NONE, "semver key needs a semver string"],
  ["v1.4.1", "v1.4.0", NONE, "a leading v is not semver"],
  ["1.4", "1.3", GT, "two-part versions compare as numbers"],
  // nothing to compare
  ["abc", "abd", NONE, "plain strings are not ordered"],
  [true, 1, NONE, "bool key"],
  [null, 1, NONE, "null key"],
  [["1"], "0", NONE, "list key"],
  [{ a: 1 }, 0, NONE, "map key"],
];

describe("numeric comparisons", () => {
  for (const [key, value, wants, why] of rows) {
    test(`${JSON.stringify(key)} vs ${JSON.stringify(value)}: ${why}`, () => {
      ops.forEach((op, i) => assert.equal(numericOperator(op, true)(key, value), wants[i], op));
    });
  }
});

test("a mis-cased operator name reaches the handler but always answers false", () => {
  for (const op of ops) {
    assert.equal(numericOperator(op, false)(5, 3), false);
    assert.equal(numericOperator(op, false)(3, 5), false);
    assert.equal(numericOperator(op, false)(3, 3), false);
  }
});

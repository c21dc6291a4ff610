import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { durationOperator } from "./duration-operators.js";
import type { Comparison } from "./numeric.js";

const ops: Comparison[] = ["GreaterThan", "GreaterThanOrEquals", "LessThan", "LessThanOrEquals"];
type Row = [JsonValue, JsonValue, [boolean, boolean, boolean, boolean], string];

const rows: Row[] = [
  ["1h", "30m", [true, true, false, false], "two durations"],
  ["1m", 60, [false, true, false, true], "duration key, seconds value"],
  [59, "1m", [false, false, true, true], "seconds key, duration value"],
  [90, 60, [true, true, false, false], "both numbers are seconds"],
  [1.9, 1, [false, true, false, true], "fractions of a second are dropped"],
  ["0", "0s", [false, true, false, true], '"0" is a valid duration here'],
  ["1h", "abc", [false, false, false, false], "unreadable value"],
  ["abc", "1h", [false, false, false, false], "unreadable key"],
  ["5", 1, [false, false, false, false], "a unitless string is not a duration"],
  [true, 1, [false, false, false, false], "bool key"],
  ["1h", null, [false, false, false, false], "null value"],
];

describe("Duration* operators", () => {
  for (const [key, value, wants, why] of rows) {
    test(`${JSON.stringify(key)} vs ${JSON.stringify(value)}: ${why}`, () => {
      ops.forEach((op, i) => assert.equal(durationOperator(op, true)(key, value), wants[i], `Duration${op}`));
    });
  }
  test("a mis-cased name always answers false", () => {
    assert.equal(durationOperator("GreaterThan", false)("1h", "1m"), false);
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { anyIn, anyNotIn } from "./any-in.js";

// [key, value, AnyIn, AnyNotIn, why]
type Row = [JsonValue, JsonValue, boolean, boolean, string];

const rows: Row[] = [
  // single keys
  ["a", ["a", "b"], true, false, "exact item"],
  ["c", ["a", "b"], false, true, "missing item"],
  ["build-default", ["build-*"], true, false, "value item as pattern"],
  ["build-*", ["build-default"], true, false, "key as pattern"],
  [5, [5], true, false, "numbers compare as %v text"],
  [5, ["5"], true, false, "number against string"],
  [1.5, ["1.5"], true, false, "float text"],
  [1000000, ["1000000"], false, true, "a float64 million prints as 1e+06"],
  [1000000, ["1e+06"], true, false, "… and matches 1e+06"],
  [true, ["true"], true, false, "bools are stringified"],
  [false, [true], false, true, "bool mismatch"],
  ["a", "a*", true, false, "string value as a wildcard"],
  ["5", "1-10", true, false, "string value as a range"],
  ["11", "1-10", false, true, "outside the range"],
  ["15Mi", "10Mi-20Mi", true, false, "quantity range"],
  ["b", '["a","b"]', true, false, "string value as a JSON array"],
  ["b*", '["bc"]', false, true, "JSON array items compare exactly for a single key"],
  ["a", "b", false, true, "plain string value is a one-item list"],
  ["a", "5", false, false, "valid JSON that is not a string array is a type error"],
  ["a", 5, false, false, "a number value is a type error for a single key"],
  ["a", { a: 1 }, false, false, "map value"],
  ["a", null, false, false, "null value"],
  [null, ["a"], false, false, "null key"],
  [{ a: 1 }, ["a"], false, false, "map key"],
  // list keys
  [["a", "x"], ["a", "b"], true, true, "one in, one out"],
  [["a", "b"], ["a", "b"], true, false, "all in"],
  [["x", "y"], ["a", "b"], false, true, "none in"],
  [["a*"], ["abc"], true, false, "key item as pattern"],
  [["a*", "?"], ["a*", "?"], true, false, "wildcard items equal on both sides match themselves"],
  [[1, 2], ["2"], true, true, "numbers stringified"],
  [["5"], 5, true, false, "a number value is one item for a list key"],
  [["a"], "a", true, false, "single key item equal to the string value"],
  [["5", "20"], "1-10", true, true, "range: one in, one out"],
  [["5", "6"], "1-10", true, false, "range: all in"],
  [["a", "b"], '["b"]', true, true, "JSON array value"],
  [["a", "x"], "a*", true, true, "string value that is not JSON is one item (wildcard)"],
  [[], ["a"], false, false, "empty key list"],
  [["a"], true, false, false, "bool value is a type error"],
];

describe("AnyIn / AnyNotIn", () => {
  for (const [key, value, inWant, notInWant, why] of rows) {
    test(`${JSON.stringify(key)} vs ${JSON.stringify(value)}: ${why}`, () => {
      assert.equal(anyIn(key, value), inWant, "AnyIn");
      assert.equal(anyNotIn(key, value), notInWant, "AnyNotIn");
    });
  }
});

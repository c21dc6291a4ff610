import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { allIn, allNotIn } from "./all-in.js";

// [key, value, AllIn, AllNotIn, why]
type Row = [JsonValue, JsonValue, boolean, boolean, string];

const rows: Row[] = [
  // single keys behave like AnyIn / AnyNotIn
  ["a", ["a", "b"], true, false, "exact item"],
  ["c", ["a", "b"], false, true, "missing item"],
  ["abc", ["a*"], true, false, "value item as pattern"],
  ["a*", ["abc"], true, false, "key as pattern"],
  [8080, [8080, 443], true, false, "numbers"],
  [true, [true], true, false, "bools"],
  ["5", "1-10", true, false, "range"],
  ["50", "1-10", false, true, "outside the range"],
  ["a", "b", false, true, "plain string value"],
  ["a", 1, false, false, "number value is a type error for a single key"],
  [null, ["a"], false, false, "null key"],
  // list keys
  [["a", "b"], ["a", "b", "c"], true, false, "every key item is in"],
  [["a", "x"], ["a", "b"], false, false, "some in, some out: neither all in nor all out"],
  [["x", "y"], ["a", "b"], false, true, "no key item is in"],
  [["a*", "b"], ["abc", "b"], true, false, "wildcards either way"],
  [["5", "6"], "1-10", true, false, "all in range"],
  [["5", "60"], "1-10", false, false, "range: mixed"],
  [["50", "60"], "1-10", false, true, "range: none in"],
  [["a"], "a", true, false, "single key item equal to the string"],
  [["a", "b"], '["a","b","c"]', true, false, "JSON array value"],
  [["2"], 2, true, false, "number value is one item"],
  [[], ["a"], true, true, "empty key list is vacuously all in and all out"],
  [["a"], { a: 1 }, false, false, "map value is a type error"],
];

describe("AllIn / AllNotIn", () => {
  for (const [key, value, inWant, notInWant, why] of rows) {
    test(`${JSON.stringify(key)} vs ${JSON.stringify(value)}: ${why}`, () => {
      assert.equal(allIn(key, value), inWant, "AllIn");
      assert.equal(allNotIn(key, value), notInWant, "AllNotIn");
    });
  }
});

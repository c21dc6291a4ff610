import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { inOperator, notInOperator } from "./in.js";

// [key, value, In, NotIn, why]
type Row = [JsonValue, JsonValue, boolean, boolean, string];

const rows: Row[] = [
  ["a", ["a", "b"], true, false, "exact item"],
  ["c", ["a", "b"], false, true, "missing item"],
  ["abc", ["a*"], true, false, "list item as pattern"],
  ["a*", ["abc"], true, false, "key as pattern"],
  [5, ["5"], true, false, "numbers are stringified"],
  [5, [5], true, false, "numbers on both sides"],
  ["a", "a*", true, false, "string value as a wildcard"],
  ["a", '["x", "a"]', true, false, "string value as a JSON array"],
  ["a*", '["abc"]', false, true, "JSON array items compare exactly"],
  ["a", "b", false, false, "a plain string value that is not JSON is a type error"],
  ["a", 5, false, false, "number value is a type error"],
  [true, ["true"], false, false, "bool keys are not supported"],
  [null, ["a"], false, false, "null key"],
  [["a", "b"], ["a", "b", "c"], true, false, "every key item is in"],
  [["a", "x"], ["a", "b"], false, true, "one key item is out"],
  [["a*"], ["abc"], false, true, "list keys compare exactly"],
  [["a"], "a", true, false, "single-item key equal to the string"],
  [["a", "b"], '["a","b"]', true, false, "string value as a JSON array"],
  [["a"], "b", false, false, "non-JSON string: type error"],
  [["a"], ["a", 1], false, false, "non-string value items: type error"],
  [["a", 1], ["a"], false, false, "non-string key items are rejected"],
  [[], ["a"], true, false, "empty key list is in"],
];

describe("In / NotIn (deprecated)", () => {
  for (const [key, value, inWant, notInWant, why] of rows) {
    test(`${JSON.stringify(key)} vs ${JSON.stringify(value)}: ${why}`, () => {
      assert.equal(inOperator(key, value), inWant, "In");
      assert.equal(notInOperator(key, value), notInWant, "NotIn");
    });
  }
});

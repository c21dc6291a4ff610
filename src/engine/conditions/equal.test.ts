import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { equals, notEquals } from "./equal.js";

// [key, value, Equals, NotEquals, why]
type Row = [JsonValue, JsonValue, boolean, boolean, string];

const rows: Row[] = [
  // bool keys
  [true, true, true, false, "same bool"],
  [true, false, false, true, "different bool"],
  [true, "true", false, true, "bool key needs a bool value"],
  // number keys
  [5, 5, true, false, "same number"],
  [5, 5.5, false, true, "float with a fraction never equals a whole number"],
  [5, "5", true, false, "string value read as a float"],
  [5, "5.0", true, false, "5.0 is 5"],
  [5, "1e1", false, true, "scientific notation is a float"],
  [5, "abc", false, true, "unreadable string: not equal"],
  [5, true, false, true, "type mismatch"],
  [5, null, false, true, "null value"],
  // string keys: durations
  ["5s", 5, true, false, "duration against seconds"],
  ["1m", "60s", true, false, "duration against duration"],
  ["1h", "59m", false, true, "different durations"],
  ["0", "0s", false, false, 'the string "0" is not a duration, and "0s" is not a quantity'],
  // quantities
  ["1Gi", "1024Mi", true, false, "quantities of different scales"],
  ["500m", "0.5", true, false, "milli quantity"],
  ["1Gi", "1G", false, true, "binary vs decimal"],
  ["1", "*", false, false, "a quantity key never wildcard-matches a non-quantity string"],
  ["1", "abc", false, false, "quantity key, non-quantity value: both false"],
  ["5", 5, false, true, "string key that is not a duration against a number"],
  // wildcards: the value is the pattern
  ["nginx", "nginx", true, false, "same string"],
  ["nginx:1.2", "nginx:*", true, false, "value as wildcard pattern"],
  ["nginx:*", "nginx:1.2", false, true, "key is not a pattern"],
  ["abc", "a?c", true, false, "? is one character"],
  ["", "", true, false, "empty strings"],
  ["", "*", true, false, "* matches empty"],
  ["Abc", "abc", false, true, "case-sensitive"],
  ["abc", 5, false, true, "string key, number value"],
  // maps and lists
  [{ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, true, false, "deep-equal maps"],
  [{ a: 1 }, { a: 2 }, false, true, "different maps"],
  [{ a: 1 }, [1], false, true, "map vs list"],
  [["a", "b"], ["a", "b"], true, false, "same list"],
  [["a", "b"], ["b", "a"], false, true, "order matters"],
  [["a"], "a", false, true, "list vs string"],
  // null key
  [null, null, false, false, "null key is always false"],
  [null, "x", false, false, "null key is always false"],
];

describe("Equals / NotEquals", () => {
  for (const [key, value, eq, ne, why] of rows) {
    test(`${JSON.stringify(key)} vs ${JSON.stringify(value)}: ${why}`, () => {
      assert.equal(equals(key, value), eq, "Equals");
      assert.equal(notEquals(key, value), ne, "NotEquals");
    });
  }
});

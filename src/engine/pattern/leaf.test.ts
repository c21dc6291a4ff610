import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonPrimitive, JsonValue } from "../api/json.js";
import { compileLeaf } from "./leaf.js";

/** [pattern, resource value (undefined = absent), expected match, why] */
type Row = readonly [JsonPrimitive, JsonValue | undefined, boolean, string];

function table(name: string, rows: readonly Row[]): void {
  describe(name, () => {
    for (const [pattern, value, want, why] of rows) {
      test(`${JSON.stringify(pattern)} vs ${value === undefined ? "absent" : JSON.stringify(value)}: ${why}`, () => {
        assert.equal(compileLeaf(pattern)(value), want);
      });
    }
  });
}

table("bool pattern", [
  [true, true, true, "same bool"],
  [true, false, false, "different bool"],
  [true, "true", false, "the string true is not a bool"],
  [false, undefined, false, "absent is not false"],
]);

table("int pattern", [
  [3, 3, true, "equal int"],
  [3, 4, false, "different int"],
  [3, 3.5, false, "a float with a fraction never equals an int"],
  [3, "3", true, "a string parsed as an int"],
  [3, "+3", true, "ParseInt accepts a sign"],
  [3, "3.0", false, "ParseInt rejects a decimal point"],
  [3, "x", false, "not a number"],
  [0, undefined, false, "absent is nil, not 0"],
  [3, true, false, "a bool is not a number"],
]);

table("float pattern", [
  [1.5, 1.5, true, "equal float"],
  [1.5, 2, false, "an int never equals a fractional pattern"],
  [1.5, "1.5", true, "a string parsed as a float"],
  [1.5, "1.50", true, "ParseFloat ignores trailing zeros"],
  [1.5, "15e-1", true, "ParseFloat reads exponents"],
  [1.5, "abc", false, "not a number"],
]);

table("null pattern", [
  [null, undefined, true, "absent"],
  [null, null, true, "null"],
  [null, 0, true, "zero"],
  [null, "", true, "empty string"],
  [null, false, true, "false"],
  [null, 1, false, "non-zero"],
  [null, "x", false, "non-empty string"],
  [null, {}, false, "maps fail"],
  [null, [], false, "lists fail"],
]);

table("string pattern: equality and wildcards", [
  ["nginx", "nginx", true, "identical strings short-circuit"],
  ["nginx", "Nginx", false, "case-sensitive"],
  ["*", "", true, "* matches empty"],
  ["*", undefined, false, "absent is nil and does not stringify"],
  ["?*", "", false, "?* means non-empty"],
  ["?*", "x", true, "?* means non-empty"],
  ["?", "ab", false, "? is exactly one character"],
  ["*:latest", "nginx:latest", true, "wildcard"],
  ["true", true, true, "bools stringify to true/false"],
  ["5", 5, true, "ints compare as quantities"],
  ["1.5E+00", 1.5, true, "floats stringify in %E form"],
  ["1.50*", 1.5, false, "so a decimal-looking wildcard does not match a float"],
  ["", undefined, false, "empty pattern does not accept an absent key (docs say otherwise)"],
  ["", "", true, "empty pattern accepts an empty string"],
  ["*", { a: 1 }, false, "maps do not stringify"],
]);

table("string pattern: operators", [
  [">2", 3, true, "greater than"],
  [">2", 2, false, "not greater"],
  [">=2", 2, true, "greater or equal"],
  ["<2", 1, true, "less than"],
  ["<=2", 3, false, "not less or equal"],
  ["!nginx", "redis", true, "not equal (wildcard)"],
  ["!nginx", "nginx", false, "equal"],
  ["!*:latest", "nginx:1.2", true, "negated wildcard"],
  ["!foo", undefined, false, "absent never matches a negated string"],
  ["!5", undefined, true, "absent is 0 for quantity comparison"],
  ["<5", undefined, true, "absent is 0 for numeric operators"],
  [">0", undefined, false, "absent is 0 for numeric operators"],
  ["0", undefined, true, "absent equals the quantity 0"],
  [">", ">", true, "a single character is never an operator"],
  ["!", "!", true, "a single ! is a literal"],
  ["> 5", 6, true, "space after the operator is trimmed"],
  [">abc", "abd", false, "ordering operators do not apply to plain strings"],
  [">1.2.3", "1.3.0", false, "no semver in patterns (docs list it; code does not)"],
  [">1", 1.5, true, "floats convert with %f for quantities"],
]);

table("string pattern: | and &", [
  ["nginx | redis", "redis", true, "OR, parts trimmed"],
  ["nginx|redis", "mysql", false, "no alternative matches"],
  [">1 & <5", 3, true, "AND"],
  [">1 & <5", 5, false, "AND needs both"],
  ["*:latest | !*:*", "nginx", true, "no tag counts as latest"],
  ["*:latest | !*:*", "nginx:1.0", false, "tagged image"],
  ["", "", true, "empty pattern"],
]);

table("string pattern: ranges", [
  ["1-10", 5, true, "inside a-b"],
  ["1-10", 10, true, "a-b is inclusive"],
  ["1-10", 11, false, "outside a-b"],
  ["1!-10", 11, true, "outside a!-b"],
  ["1!-10", 1, false, "a!-b excludes the ends"],
  ["-5-5", -3, true, "signed ends"],
  ["1Gi-2Gi", "1536Mi", true, "quantity range"],
  ["1Gi-2Gi", "3Gi", false, "quantity out of range"],
  ["10-1", 5, false, "a reversed range matches nothing"],
  ["2020-01-01", "2020-01-01", true, "dates are not ranges"],
  ["my-app", "my-app", true, "names are not ranges"],
]);

table("string pattern: durations then quantities", [
  [">1h", "90m", true, "duration compare"],
  ["<=30s", "1m", false, "duration compare"],
  ["1m", "60s", true, "both durations: equal time"],
  ["<5s", 3, false, "an int is not a duration, and 5s is not a quantity"],
  ["1Gi", "1024Mi", true, "quantity equality"],
  ["<1Gi", "512Mi", true, "quantity compare"],
  [">=500m", "0.5", true, "milli quantities"],
  ["<2", "abc", false, "unparseable value with an ordering operator"],
]);

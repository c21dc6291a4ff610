import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { hasWildcard, wildcardMatch } from "./wildcard.js";

describe("wildcardMatch", () => {
  const cases: ReadonlyArray<readonly [string, string, boolean]> = [
    ["*", "", true],
    ["*", "anything", true],
    ["", "", true],
    ["", "a", false],
    ["nginx", "nginx", true],
    ["nginx", "Nginx", false],
    ["nginx", "nginx:1", false],
    ["nginx*", "nginx", true],
    ["nginx*", "nginx:1.2", true],
    ["*:latest", "nginx:latest", true],
    ["*:latest", "nginx:latest2", false],
    ["*latest*", "a-latest-b", true],
    ["?", "", false],
    ["?", "a", true],
    ["?", "ab", false],
    ["?*", "", false],
    ["?*", "x", true],
    ["??", "ab", true],
    ["a?c", "abc", true],
    ["a?c", "ac", false],
    ["a*b*c", "abc", true],
    ["a*b*c", "aXbYc", true],
    ["a*b*c", "acb", false],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["*a*a*", "xaya", true],
    ["*ab*ab", "abab", true],
    ["*ab*ab", "abcab", true],
    ["*ab*ab", "ab", false],
    ["**", "", true],
    ["a**b", "ab", true],
    ["*.example.com", "www.example.com", true],
    ["*.example.com", "example.com", false],
    ["?é", "aé", true],
    ["?", "😀", true],
    ["x*?", "x", false],
    ["x*?", "xy", true],
  ];
  for (const [pattern, value, want] of cases) {
    test(`${JSON.stringify(pattern)} vs ${JSON.stringify(value)} -> ${want}`, () => {
      assert.equal(wildcardMatch(pattern, value), want);
    });
  }

  test("long adversarial input completes quickly (no backtracking blow-up)", () => {
    const value = "a".repeat(5000);
    const pattern = "*a".repeat(30) + "b";
    assert.equal(wildcardMatch(pattern, value), false);
    assert.equal(wildcardMatch("*a*a*a*a*a*a", value), true);
  });
});

describe("hasWildcard", () => {
  test("detects * and ?", () => {
    assert.equal(hasWildcard("a*"), true);
    assert.equal(hasWildcard("a?"), true);
    assert.equal(hasWildcard("abc"), false);
    assert.equal(hasWildcard(""), false);
  });
});

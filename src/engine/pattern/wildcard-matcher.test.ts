import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { wildcardMatch } from "../values/wildcard.js";
import { compileWildcard } from "./wildcard-matcher.js";

describe("compileWildcard", () => {
  const patterns = [
    "*",
    "",
    "a",
    "ab*",
    "*ab",
    "a*b",
    "a?",
    "?*",
    "*?",
    "**",
    "a**",
    "**a",
    "\uD83D\uDE00*",
    "\uD83D*",
    "*\uDE00",
    "é*",
    "localhost/*",
    "runtime/default",
  ];
  const values = [
    "",
    "a",
    "ab",
    "abc",
    "cab",
    "ba",
    "aab",
    "\uD83D\uDE00",
    "\uD83D\uDE00x",
    "\uD83D",
    "x\uDE00",
    "é",
    "éa",
    "localhost/x",
    "localhost/",
    "runtime/default",
  ];
  test("agrees with wildcardMatch on every pair", () => {
    for (const p of patterns) {
      const m = compileWildcard(p);
      for (const v of values) assert.equal(m(v), wildcardMatch(p, v), `${JSON.stringify(p)} ~ ${JSON.stringify(v)}`);
    }
  });

  test("prefix and suffix shapes", () => {
    assert.equal(compileWildcard("localhost/*")("localhost/profile"), true);
    assert.equal(compileWildcard("localhost/*")("local"), false);
    assert.equal(compileWildcard("*.example.com")("a.example.com"), true);
    assert.equal(compileWildcard("*.example.com")("example.com"), false);
  });
});

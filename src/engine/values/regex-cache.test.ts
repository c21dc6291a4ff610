import assert from "node:assert/strict";
import { test } from "node:test";
import { regexCache } from "./regex-cache.js";

test("a pattern is compiled once and matches with RE2's rules", () => {
  const compile = regexCache();
  const first = compile("^a(b+)$");
  assert.notEqual(typeof first, "string");
  assert.equal(compile("^a(b+)$"), first);
  if (typeof first === "string") return;
  assert.equal(first.matcher("abbb").find(), true);
  assert.equal(first.matcher("ac").find(), false);
});

test("a pattern that does not compile answers the parser's error text, each time", () => {
  const compile = regexCache();
  const bad = compile("a(");
  assert.equal(typeof bad, "string");
  assert.match(String(bad), /missing closing \)/);
  assert.equal(compile("a("), bad);
  // RE2 has no look-ahead: refused, never run by another engine.
  assert.equal(typeof compile("a(?=b)"), "string");
});

test("a pattern longer than the limit is compiled at each call, not kept", () => {
  const compile = regexCache({ maxPatternLength: 8 });
  const long = "x".repeat(9);
  const a = compile(long);
  const b = compile(long);
  assert.notEqual(typeof a, "string");
  assert.notEqual(a, b);
  assert.equal(compile("short"), compile("short"));
});

test("the cache holds at most `max` patterns: a full cache starts again", () => {
  const compile = regexCache({ max: 2 });
  const a = compile("a");
  compile("b");
  assert.equal(compile("a"), a);
  compile("c"); // full: dropped, then c kept
  assert.notEqual(compile("a"), a);
});

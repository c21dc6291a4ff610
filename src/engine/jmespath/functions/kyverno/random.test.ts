import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { RE2JS } from "re2js";
import { JmesPathError } from "../../types.js";
import { call, fakeContext } from "../../../../../test/support/fake-function-context.js";
import { randomFunctions } from "./random.js";
import { textOf } from "../../../api/json.js";

describe("random", () => {
  const patterns = [
    "[0-9a-z]{5}",
    "[A-Z0-9]{8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{12}",
    "[0-9]{1,6}",
    "(foo|bar)-\\d+",
    "[^a-z]{3}",
    "a.b",
    "\\w+@\\w+\\.com",
    "x?y*z+",
    "(?i)abc",
    "[[:digit:]]{2}",
  ];
  for (const pattern of patterns) {
    test(`output matches ${pattern}`, () => {
      for (let seed = 1; seed <= 20; seed++) {
        const out = call(randomFunctions, "random", [pattern], fakeContext({ seed }));
        assert.equal(typeof out, "string");
        assert.ok(
          RE2JS.compile(`^(?:${pattern})$`).matches(textOf(out)),
          `${JSON.stringify(out)} does not match ${pattern}`,
        );
      }
    });
  }

  test("is deterministic for a given Random port", () => {
    const a = call(randomFunctions, "random", ["[a-z]{12}"], fakeContext({ seed: 7 }));
    const b = call(randomFunctions, "random", ["[a-z]{12}"], fakeContext({ seed: 7 }));
    const c = call(randomFunctions, "random", ["[a-z]{12}"], fakeContext({ seed: 8 }));
    assert.equal(a, b);
    assert.notEqual(a, c);
  });

  test("an empty pattern is an error", () => {
    assert.throws(
      () => call(randomFunctions, "random", [""]),
      (e: unknown) => e instanceof JmesPathError && e.message === "no pattern provided",
    );
  });

  test("an invalid pattern gives Go's regexp error", () => {
    assert.throws(
      () => call(randomFunctions, "random", ["[a-"]),
      (e: unknown) => e instanceof JmesPathError && e.message === "error parsing regexp: missing closing ]: `[a-`",
    );
  });
});

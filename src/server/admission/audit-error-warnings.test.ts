import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MAX_REASON_CHARS, shortReason } from "./audit-error-warnings.js";

describe("shortReason", () => {
  test("keeps a short one-line reason as it is", () => {
    assert.equal(shortReason("variable substitution failed: x"), "variable substitution failed: x");
  });
  test("keeps the first line only, and cuts a long one", () => {
    assert.equal(shortReason("first line\nsecond line"), "first line");
    const long = shortReason("x".repeat(MAX_REASON_CHARS * 2));
    assert.equal(long.length, MAX_REASON_CHARS);
    assert.ok(long.endsWith("…"));
  });
  test("an empty message still says what happened", () => {
    assert.equal(shortReason(""), "evaluation error");
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { syntaxError, unknownKeyError } from "./errors.js";
import { JmesPathError } from "./types.js";

describe("JmesPathError", () => {
  it("is an Error with its kind and message, and leaves the process's stack trace limit as it was", () => {
    const frames: ErrorConstructor & { stackTraceLimit?: number | undefined } = Error;
    const before = frames.stackTraceLimit;
    const e = unknownKeyError("image");
    assert.ok(e instanceof Error && e instanceof JmesPathError);
    assert.equal(e.kind, "unknown-key");
    assert.equal(e.message, 'Unknown key "image" in path');
    assert.equal(e.name, "JmesPathError");
    assert.equal(frames.stackTraceLimit, before);
    // Other errors still carry their stack frames.
    assert.match(new Error("other").stack ?? "", /\n\s+at /);
  });

  it("takes no stack trace: it is thrown in the normal course of evaluation and reported by its message", () => {
    assert.equal(unknownKeyError("x").stack, 'JmesPathError: Unknown key "x" in path');
    const syntax = syntaxError("Unexpected token", "foo[", 4);
    assert.equal(syntax.kind, "syntax");
    assert.doesNotMatch(syntax.stack ?? "", /\n\s+at /);
  });
});

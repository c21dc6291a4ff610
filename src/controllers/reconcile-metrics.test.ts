import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { reconcileResult } from "./reconcile-metrics.js";

describe("reconcileResult", () => {
  test("an attempt that succeeded is done", () => {
    assert.deepEqual(reconcileResult({ failed: false, retry: false, transient: false, tries: 1 }), { result: "done" });
  });
  test("a failure retrying cannot change (the policy's) is done: it ends in the item's status", () => {
    assert.deepEqual(reconcileResult({ failed: true, retry: false, transient: false, tries: 1 }), { result: "done" });
  });
  test("a transient failure with retries left is requeued, naming the try that comes next", () => {
    assert.deepEqual(reconcileResult({ failed: true, retry: true, transient: true, tries: 3 }), {
      result: "requeued",
      requeues: 3,
    });
  });
  test("a transient failure out of retries is dropped", () => {
    assert.deepEqual(reconcileResult({ failed: true, retry: false, transient: true, tries: 6 }), {
      result: "dropped",
    });
  });
});

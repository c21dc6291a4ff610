import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { renderLoadReport } from "./load-performance.js";

describe("--show-performance: kyverno apply's resource loading summary", () => {
  test("prints Kyverno's lines, the duration as Go writes it, and the estimate against 300ms a call", () => {
    const text = renderLoadReport({ durationNs: 150_000_000n, loaded: 12, apiCalls: 3, workers: 3, errors: [] });
    assert.equal(
      text,
      [
        "",
        "Resource Loading Performance:",
        "  Duration: 150ms",
        "  Resources loaded: 12",
        "  API calls: 3",
        "  Concurrent workers: 3",
        "  Estimated improvement: 83.3% faster than sequential",
      ].join("\n"),
    );
  });

  test("lists the kinds that could not be loaded, and no estimate when loading took longer than calls one by one", () => {
    const text = renderLoadReport({
      durationNs: 2_500_000_000n,
      loaded: 0,
      apiCalls: 1,
      workers: 2,
      errors: [{ type: "pods", error: "forbidden" }],
    });
    assert.match(text, /  Duration: 2\.5s\n/);
    assert.match(text, /  Errors: 1\n    - pods: forbidden$/);
    assert.doesNotMatch(text, /Estimated improvement/);
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { anyPatternDetails, compileAnyPattern, matchAnyPattern } from "./index.js";

const runAsNonRoot: JsonValue[] = [
  {
    spec: {
      securityContext: { runAsNonRoot: true },
      containers: [{ "=(securityContext)": { "=(runAsNonRoot)": true } }],
    },
  },
  { spec: { containers: [{ securityContext: { runAsNonRoot: true } }] } },
];

describe("matchAnyPattern", () => {
  test("passes with the first pattern that matches", () => {
    const pod = { spec: { containers: [{ name: "a", securityContext: { runAsNonRoot: true } }] } };
    assert.deepEqual(matchAnyPattern(pod, runAsNonRoot), { status: "pass", index: 1 });
  });

  test("fails with every pattern's failure when none matches", () => {
    const got = matchAnyPattern({ spec: { containers: [{ name: "a" }] } }, runAsNonRoot);
    assert.equal(got.status, "fail");
    assert.deepEqual(anyPatternDetails("check-containers", got), [
      "rule check-containers[0] failed at path /spec/securityContext/",
      "rule check-containers[1] failed at path /spec/containers/0/securityContext/",
    ]);
  });

  test("is a skip when every pattern skipped", () => {
    const got = matchAnyPattern({ spec: {} }, [{ spec: { "(a)": 1 } }, { spec: { "(b)": 2 } }]);
    assert.equal(got.status, "skip");
    assert.deepEqual(anyPatternDetails("r", got), [
      "rule r[0] skipped: conditional anchor mismatch: conditional anchor key doesn't exist in the resource",
      "rule r[1] skipped: conditional anchor mismatch: conditional anchor key doesn't exist in the resource",
    ]);
  });

  test("a failure wins over skips, and skips are then left out of the details", () => {
    const got = matchAnyPattern({ spec: { x: 1 } }, [{ spec: { "(a)": 1 } }, { spec: { x: 2 } }]);
    assert.equal(got.status, "fail");
    assert.deepEqual(anyPatternDetails("r", got), ["rule r[1] failed at path /spec/x/"]);
  });

  test("an error without a path is reported with its message", () => {
    const got = matchAnyPattern({ m: [[1]] }, [{ m: [[1], [2]] }]);
    assert.deepEqual(anyPatternDetails("r", got as Exclude<typeof got, { status: "pass" }>), [
      "rule r[0] failed: validate Array failed, array length mismatch, resource Array len is 1 and pattern Array len is 2",
    ]);
  });

  test("an empty list passes", () => {
    assert.deepEqual(matchAnyPattern({}, []), { status: "pass", index: -1 });
  });

  test("a compiled list can be reused", () => {
    const compiled = compileAnyPattern([{ a: "x" }, { b: "y" }]);
    assert.deepEqual(compiled.match({ b: "y" }), { status: "pass", index: 1 });
    assert.equal(compiled.match({ a: "z" }).status, "fail");
  });
});

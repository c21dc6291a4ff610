import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../api/json.js";
import { jsonMergePatch } from "./index.js";
import { deepFreeze } from "../../../../test/support/strategic-merge-cases.js";

// RFC 7386 appendix A, plus `$` keys (plain keys here) and an absent target.
const cases: [JsonValue | undefined, JsonValue, JsonValue][] = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [
    ["a", "b"],
    ["c", "d"],
    ["c", "d"],
  ],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  [undefined, { a: { b: null, c: 1 } }, { a: { c: 1 } }],
  [{ spec: { x: 1 } }, { spec: { $patch: "delete" } }, { spec: { x: 1, $patch: "delete" } }],
];

for (const [target, patch, want] of cases) {
  test(`merge patch ${JSON.stringify(patch)} onto ${JSON.stringify(target)}`, () => {
    assert.deepEqual(jsonMergePatch(target === undefined ? undefined : deepFreeze(target), deepFreeze(patch)), want);
  });
}

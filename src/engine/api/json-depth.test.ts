/** The nesting-depth check that guards every recursive walk of policies and resources. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "./json.js";
import { exceedsDepth } from "./json-depth.js";

function nested(depth: number, kind: "map" | "list"): JsonValue {
  let v: JsonValue = "leaf";
  for (let i = 0; i < depth; i++) v = kind === "map" ? { k: v, other: 1 } : [1, v];
  return v;
}

describe("exceedsDepth", () => {
  test("scalars and absent values are never too deep", () => {
    assert.equal(exceedsDepth(undefined, 1), false);
    assert.equal(exceedsDepth("x", 0), false);
  });
  for (const kind of ["map", "list"] as const) {
    test(`${kind}s: exactly at the limit passes, one more level fails`, () => {
      assert.equal(exceedsDepth(nested(5, kind), 5), false);
      assert.equal(exceedsDepth(nested(6, kind), 5), true);
    });
  }
  test("mixed maps and lists count every level, on any branch", () => {
    const doc: JsonValue = { a: [{ b: [{ c: {} }] }], z: 1 }; // six levels: root, list, map, list, map, {}
    assert.equal(exceedsDepth(doc, 6), false);
    assert.equal(exceedsDepth(doc, 5), true);
    assert.equal(exceedsDepth({ shallow: 1, deep: nested(20, "map") }, 10), true);
  });
  test("a deep document is checked without recursion (no stack overflow)", () => {
    assert.equal(exceedsDepth(nested(200_000, "list"), 1000), true);
  });
});

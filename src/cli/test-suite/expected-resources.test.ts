import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { findSameObject, sameContent, tidy } from "./expected-resources.js";

describe("comparing produced resources with the test's files", () => {
  test("tidy drops nulls, empty maps and empty lists, recursively", () => {
    assert.deepEqual(tidy({ a: null, b: {}, c: [], d: { e: { f: [] } }, g: [null, 1], h: 0, i: "", j: false }), {
      g: [1],
      h: 0,
      i: "",
      j: false,
    });
  });
  test("an unset namespace compares as default", () => {
    const a = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { x: 1 } };
    const e = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { x: 1, y: {} } };
    assert.equal(findSameObject([e], a), e);
    assert.ok(sameContent(a, e));
    assert.ok(!sameContent(a, { ...e, spec: { x: 2 } }));
  });
  test("list order matters", () => {
    const a = { kind: "Pod", metadata: { name: "p" }, spec: { l: [1, 2] } };
    assert.ok(!sameContent(a, { ...a, spec: { l: [2, 1] } }));
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "../api/json.js";
import type { FunctionContext, JmesPathEngine } from "../jmespath/types.js";
import { ExpressionCache, type SubstitutionScope } from "../variables/index.js";
import { ElementScopes } from "./element-scopes.js";
import { withElement } from "./evaluate-list.js";

function scope(data: JsonObject): SubstitutionScope {
  const jmespath = {} as JmesPathEngine;
  return {
    data,
    jmespath,
    fnctx: {} as FunctionContext,
    cache: new ExpressionCache(jmespath),
    operation: "CREATE",
    basePath: "/x",
  };
}

describe("ElementScopes", () => {
  const outer = scope({ request: { operation: "CREATE" }, images: {}, team: "a" });
  const items = [{ name: "c0" }, "s", 3, { name: "c3" }];

  for (const depth of [0, 1, 7, 9]) {
    test(`at depth ${depth}, an element's scope is the list's, with element, elementIndex, element${depth} and elementIndex${depth} after the context's keys`, () => {
      const scopes = new ElementScopes(outer, depth);
      items.forEach((element, index) => {
        const s = scopes.at(element, index);
        assert.deepEqual(s.data, {
          ...outer.data,
          element,
          elementIndex: index,
          [`element${depth}`]: element,
          [`elementIndex${depth}`]: index,
        });
        assert.deepEqual(Object.keys(s.data), [
          "request",
          "images",
          "team",
          "element",
          "elementIndex",
          `element${depth}`,
          `elementIndex${depth}`,
        ]);
        assert.deepEqual({ ...s, data: null }, { ...outer, data: null });
        assert.deepEqual(withElement(outer, element, index, depth), s, "withElement makes the same scope");
      });
    });
  }

  test("a nested level keeps the outer element's keys and replaces element and elementIndex in place", () => {
    const first = withElement(outer, { name: "c0" }, 0, 0);
    const scopes = new ElementScopes(first, 1);
    const inner = scopes.at("NET_RAW", 2);
    assert.deepEqual(inner.data, {
      ...outer.data,
      element: "NET_RAW",
      elementIndex: 2,
      element0: { name: "c0" },
      elementIndex0: 0,
      element1: "NET_RAW",
      elementIndex1: 2,
    });
    assert.deepEqual(Object.keys(inner.data), [
      "request",
      "images",
      "team",
      "element",
      "elementIndex",
      "element0",
      "elementIndex0",
      "element1",
      "elementIndex1",
    ]);
    assert.equal(inner.data["element0"], first.data["element0"]);
  });

  test("every element gets data of its own, and the list's scope is not changed", () => {
    const scopes = new ElementScopes(outer, 0);
    const a = scopes.at("a", 0);
    const b = scopes.at("b", 1);
    assert.notEqual(a.data, b.data);
    assert.equal(a.data["element"], "a");
    assert.equal(b.data["element"], "b");
    assert.deepEqual(Object.keys(outer.data), ["request", "images", "team"]);
    assert.equal(a.cache, outer.cache);
    assert.equal(a.basePath, "/x");
  });
});

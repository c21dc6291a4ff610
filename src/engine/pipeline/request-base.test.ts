/** A request's base context is built once and kept on the request, out of sight of its readers. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pod } from "../../../test/support/builders.js";
import { requestBase } from "./request-base.js";
import type { EngineRequest } from "./types.js";

const request = (): EngineRequest => ({ resource: pod("web", { labels: { app: "web" } }), operation: "CREATE", namespaceLabels: {} });

describe("requestBase", () => {
  test("a request's base is built once, with and without images, and reused", () => {
    const r = request();
    const first = requestBase(r, false);
    assert.equal(requestBase(r, false), first);
    const withImages = requestBase(r, true);
    assert.notEqual(withImages, first);
    assert.equal(requestBase(r, true), withImages);
    assert.equal(requestBase(request(), false) === first, false, "another request object gets its own base");
  });

  test("the memo does not show in the request: keys, JSON and a spread copy are as before", () => {
    const r = request();
    const before = { keys: Object.keys(r), symbols: Object.getOwnPropertySymbols(r).filter((s) => Object.getOwnPropertyDescriptor(r, s)?.enumerable), json: JSON.stringify(r) };
    requestBase(r, true);
    assert.deepEqual(Object.keys(r), before.keys);
    assert.deepEqual(Object.getOwnPropertySymbols(r).filter((s) => Object.getOwnPropertyDescriptor(r, s)?.enumerable), before.symbols);
    assert.equal(JSON.stringify(r), before.json);
    // A copy is a new request: it builds its own base rather than sharing the original's.
    const copy = { ...r, operation: "UPDATE" as const };
    assert.equal(requestBase(copy, true).operation, "UPDATE");
    assert.equal(requestBase(r, true).operation, "CREATE");
  });

  test("a frozen request is evaluated all the same, its base built each time", () => {
    const r = Object.freeze(request());
    const a = requestBase(r, false);
    const b = requestBase(r, false);
    assert.notEqual(a, b);
    assert.deepEqual(a.base, b.base);
    assert.equal(a.operation, "CREATE");
  });
});

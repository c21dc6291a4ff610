import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { setOwn } from "./set-own.js";

describe("setOwn writes data keys as own properties", () => {
  test("an ordinary key is set, and overwritten", () => {
    const o: Record<string, number> = {};
    setOwn(o, "a", 1);
    setOwn(o, "a", 2);
    assert.deepEqual(Object.entries(o), [["a", 2]]);
  });

  test("__proto__ becomes an own, enumerable key and the prototype stays", () => {
    const o: Record<string, unknown> = {};
    setOwn(o, "__proto__", { polluted: true });
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.deepEqual(Object.keys(o), ["__proto__"]);
    assert.equal(JSON.stringify(o), '{"__proto__":{"polluted":true}}');
    assert.equal((o as { polluted?: unknown }).polluted, undefined);
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { holdsNoBraces, holdsNoVariables } from "./inert.js";

describe("holdsNoBraces", () => {
  test("finds {{ in strings, list items, map values and map keys, at any depth", () => {
    assert.equal(holdsNoBraces(["ALL", "NET_RAW"]), true);
    assert.equal(holdsNoBraces({ a: [1, null, true, { b: "x" }] }), true);
    assert.equal(holdsNoBraces(["ALL", "{{ x }}"]), false);
    assert.equal(holdsNoBraces({ a: { b: ["{{x"] } }), false);
    assert.equal(holdsNoBraces({ "{{ k }}": 1 }), false);
  });

  test("ignores $( ), which only the reference pass reads", () => {
    assert.equal(holdsNoBraces(["$(./a)"]), true);
    assert.equal(holdsNoVariables(["$(./a)"]), false);
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { jsonEqual } from "./json-equal.js";

describe("jsonEqual compares decoded JSON as reflect.DeepEqual does", () => {
  const equal: [unknown, unknown][] = [
    [null, null],
    [1, 1.0],
    ["a", "a"],
    [
      [1, [2, { a: null }]],
      [1, [2, { a: null }]],
    ],
    [
      { a: 1, b: { c: [true] } },
      { b: { c: [true] }, a: 1 },
    ],
    [{}, {}],
    [[], []],
    [Object.assign(Object.create(null) as object, { a: 1 }), { a: 1 }],
  ];
  for (const [a, b] of equal)
    test(`${JSON.stringify(a)} equals ${JSON.stringify(b)}`, () => assert.equal(jsonEqual(a, b), true));

  const unequal: [unknown, unknown][] = [
    [NaN, NaN],
    [1, "1"],
    [null, false],
    [null, undefined],
    [
      [1, 2],
      [2, 1],
    ],
    [[1], [1, 1]],
    [[], {}],
    [{ a: 1 }, { a: 1, b: 2 }],
    [{ a: 1, b: 2 }, { a: 1 }],
    [{ a: 1 }, { b: 1 }],
    [{ a: null }, {}],
    [{ a: { b: 1 } }, { a: { b: 2 } }],
  ];
  for (const [a, b] of unequal)
    test(`${JSON.stringify(a)} differs from ${JSON.stringify(b)}`, () => assert.equal(jsonEqual(a, b), false));

  test("an object that is not decoded JSON (a JMESPath &expr) equals only itself", () => {
    class Ref {
      get kind(): string {
        return "expref";
      }
    }
    const r = new Ref();
    assert.equal(jsonEqual(r, r), true);
    assert.equal(jsonEqual(r, new Ref()), false);
    assert.equal(jsonEqual(r, {}), false);
    assert.equal(jsonEqual({}, r), false);
    assert.equal(jsonEqual([r], [new Ref()]), false);
  });

  test("a __proto__ key is compared as data", () => {
    const withProto = JSON.parse('{"__proto__": {"x": 1}}') as unknown;
    assert.equal(jsonEqual(withProto, JSON.parse('{"__proto__": {"x": 1}}')), true);
    assert.equal(jsonEqual(withProto, JSON.parse('{"__proto__": {"x": 2}}')), false);
    assert.equal(jsonEqual(withProto, {}), false);
  });
});

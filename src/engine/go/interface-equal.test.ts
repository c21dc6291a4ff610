import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { goInterfaceEqual } from "./interface-equal.js";

describe("goInterfaceEqual is Go's == on interface{} values", () => {
  const rows: [unknown, unknown, boolean][] = [
    ["a", "a", true],
    ["a", "b", false],
    [1, 1.0, true],
    [1, "1", false],
    [null, null, true],
    [null, false, false],
    [true, true, true],
    [[1], { a: 1 }, false],
    [{ a: 1 }, "x", false],
    [[1], null, false],
  ];
  for (const [a, b, want] of rows)
    test(`${JSON.stringify(a)} == ${JSON.stringify(b)} is ${want}`, () => assert.equal(goInterfaceEqual(a, b), want));

  test("two slices or two maps cannot be compared: Go panics", () => {
    assert.deepEqual(goInterfaceEqual([1], [1]), {
      panic: "runtime error: comparing uncomparable type []interface {}",
    });
    assert.deepEqual(goInterfaceEqual({}, { a: 1 }), {
      panic: "runtime error: comparing uncomparable type map[string]interface {}",
    });
  });

  test("an object that is not decoded JSON equals only itself", () => {
    class Ref {}
    const r = new Ref();
    assert.equal(goInterfaceEqual(r, r), true);
    assert.equal(goInterfaceEqual(r, new Ref()), false);
    assert.equal(goInterfaceEqual(r, {}), false);
  });
});

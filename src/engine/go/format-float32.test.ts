import { describe, it, test } from "node:test";
import assert from "node:assert/strict";
import { float32MapKey, formatFloat32 } from "./format-float32.js";

describe("formatFloat32 and the 'g' form", () => {
  const float32: ReadonlyArray<readonly [number, string]> = [
    [1, "1"],
    [1.5, "1.5"],
    [0.1, "0.1"],
    [-2.25, "-2.25"],
    [3.14159265, "3.1415927"],
    [16777217, "16777216"],
    [123456789, "123456790"],
    [1e20, "100000000000000000000"],
    [1e-7, "0.0000001"],
    [0, "0"],
  ];
  for (const [n, want] of float32) {
    test(`FormatFloat(${n}, 'f', -1, 32) = ${want}`, () => assert.equal(formatFloat32(n), want));
  }

  test("FormatFloat(f, 'g', -1, 32) for YAML keys", () => {
    assert.equal(float32MapKey(1.5), "1.5");
    assert.equal(float32MapKey(1e10), "1e+10");
    assert.equal(float32MapKey(123456789), "1.2345679e+08");
  });
});

describe("float32MapKey (sigs.k8s.io/yaml keys: Go's FormatFloat(f, 'g', -1, 32))", () => {
  it("prints the shortest float32 digits", () => {
    assert.equal(float32MapKey(1.5), "1.5");
    assert.equal(float32MapKey(0.1), "0.1");
    assert.equal(float32MapKey(3.14159), "3.14159");
    assert.equal(float32MapKey(123456), "123456");
    assert.equal(float32MapKey(-2.25), "-2.25");
    assert.equal(float32MapKey(0), "0");
  });

  it("switches to exponent form below 1e-4 and from 1e6", () => {
    assert.equal(float32MapKey(1e7), "1e+07");
    assert.equal(float32MapKey(1234567), "1.234567e+06");
    assert.equal(float32MapKey(16777217), "1.6777216e+07");
    assert.equal(float32MapKey(0.0001), "0.0001");
    assert.equal(float32MapKey(0.00001), "1e-05");
    assert.equal(float32MapKey(1e21), "1e+21");
  });

  it("names the special values as YAML does", () => {
    assert.equal(float32MapKey(Infinity), ".inf");
    assert.equal(float32MapKey(-Infinity), "-.inf");
    assert.equal(float32MapKey(NaN), ".nan");
    assert.equal(float32MapKey(1e300), ".inf");
  });
});

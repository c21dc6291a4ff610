import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatGoFloat32, keyFromScalar, keyFromValue } from "./map-key.js";

describe("formatGoFloat32 (Go's FormatFloat(f, 'g', -1, 32))", () => {
  it("prints the shortest float32 digits", () => {
    assert.equal(formatGoFloat32(1.5), "1.5");
    assert.equal(formatGoFloat32(0.1), "0.1");
    assert.equal(formatGoFloat32(3.14159), "3.14159");
    assert.equal(formatGoFloat32(123456), "123456");
    assert.equal(formatGoFloat32(-2.25), "-2.25");
    assert.equal(formatGoFloat32(0), "0");
  });

  it("switches to exponent form below 1e-4 and from 1e6", () => {
    assert.equal(formatGoFloat32(1e7), "1e+07");
    assert.equal(formatGoFloat32(1234567), "1.234567e+06");
    assert.equal(formatGoFloat32(16777217), "1.6777216e+07");
    assert.equal(formatGoFloat32(0.0001), "0.0001");
    assert.equal(formatGoFloat32(0.00001), "1e-05");
    assert.equal(formatGoFloat32(1e21), "1e+21");
  });

  it("names the special values as YAML does", () => {
    assert.equal(formatGoFloat32(Infinity), ".inf");
    assert.equal(formatGoFloat32(-Infinity), "-.inf");
    assert.equal(formatGoFloat32(NaN), ".nan");
    assert.equal(formatGoFloat32(1e300), ".inf");
  });
});

describe("map keys", () => {
  it("turns scalar keys into strings like sigs.k8s.io/yaml", () => {
    assert.deepEqual(keyFromScalar({ kind: "bool", value: true }), { ok: true, key: "true" });
    assert.deepEqual(keyFromScalar({ kind: "int", value: 8, text: "8" }), { ok: true, key: "8" });
    assert.deepEqual(keyFromScalar({ kind: "float", value: 1000 }), { ok: true, key: "1000" });
    assert.equal(keyFromScalar({ kind: "null", value: null }).ok, false);
    assert.equal(keyFromScalar({ kind: "uint", value: 2 ** 64 }).ok, false);
  });

  it("refuses collections as keys", () => {
    assert.deepEqual(keyFromValue(["a"]), { ok: false, message: "unsupported map key: a sequence" });
    assert.deepEqual(keyFromValue(7), { ok: true, key: "7" });
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keyFromScalar, keyFromValue } from "./map-key.js";

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

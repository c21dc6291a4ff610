/**
 * JSON Patch as Kubernetes applies a JSONPatch mutation (evanphx/json-patch v4). Each expectation
 * was checked beside kyverno apply v1.19.0 with a MutatingPolicy holding the same operations.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../../api/json.js";
import { applyJsonPatchV4, operationsV4, type PatchOperationV4 } from "./apply-v4.js";

const pod = (): JsonObject => ({
  metadata: { name: "a", labels: { app: "x" }, annotations: { n: null } },
  spec: { containers: [{ name: "c1" }, { name: "c2" }] },
});

function patched(ops: PatchOperationV4[], doc: JsonObject = pod()): JsonValue {
  const r = applyJsonPatchV4(doc, ops);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

function error(ops: PatchOperationV4[]): string {
  const r = applyJsonPatchV4(pod(), ops);
  assert.equal(r.ok, false);
  return r.ok ? "" : r.message;
}

test("every parent must exist: add and remove below an absent or null key are errors", () => {
  assert.equal(
    error([{ op: "add", path: "/metadata/nope/x", value: "y" }]),
    'add operation does not apply: doc is missing path: "/metadata/nope/x": missing value',
  );
  assert.equal(
    error([{ op: "add", path: "/metadata/annotations/n/x", value: "y" }]),
    'add operation does not apply: doc is missing path: "/metadata/annotations/n/x": missing value',
  );
  assert.equal(
    error([{ op: "remove", path: "/metadata/labels/team" }]),
    "error in remove for path: '/metadata/labels/team': Unable to remove nonexistent key: team: missing value",
  );
  assert.equal(
    error([{ op: "move", from: "/metadata/name", path: "/metadata/nope/x" }]),
    "move operation does not apply: doc is missing destination path: /metadata/nope/x: missing value",
  );
  assert.equal(
    error([{ op: "add", path: "", value: { a: 1 } }]),
    'add operation does not apply: doc is missing path: "": missing value',
  );
});

test("replace and copy of an absent key set and copy null; the input is not changed", () => {
  const doc = pod();
  const out = patched(
    [
      { op: "replace", path: "/spec/nodeName", value: "n" },
      { op: "copy", from: "/spec/nope", path: "/spec/x" },
    ],
    doc,
  );
  assert.deepEqual((out as JsonObject)["spec"], {
    containers: [{ name: "c1" }, { name: "c2" }],
    nodeName: "n",
    x: null,
  });
  assert.deepEqual(doc, pod());
});

test("list indices: '-' and negative indices, Go's index errors", () => {
  const names = (v: JsonValue) =>
    (((v as JsonObject)["spec"] as JsonObject)["containers"] as JsonObject[]).map((c) => c["name"]);
  assert.deepEqual(names(patched([{ op: "add", path: "/spec/containers/-", value: { name: "z" } }])), [
    "c1",
    "c2",
    "z",
  ]);
  assert.deepEqual(names(patched([{ op: "add", path: "/spec/containers/-1", value: { name: "z" } }])), [
    "c1",
    "c2",
    "z",
  ]);
  assert.deepEqual(names(patched([{ op: "remove", path: "/spec/containers/-1" }])), ["c1"]);
  assert.equal(
    error([{ op: "add", path: "/spec/containers/5", value: {} }]),
    "error in add for path: '/spec/containers/5': Unable to access invalid index: 5: invalid index referenced",
  );
  assert.equal(
    error([{ op: "add", path: "/spec/containers/x", value: 1 }]),
    `error in add for path: '/spec/containers/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
  );
  assert.equal(
    error([{ op: "remove", path: "/spec/containers/x" }]),
    `error in remove for path: '/spec/containers/x': strconv.Atoi: parsing "x": invalid syntax`,
  );
  assert.equal(
    error([{ op: "replace", path: "/spec/containers/9", value: {} }]),
    "replace operation does not apply: doc is missing key: /spec/containers/9: missing value",
  );
  assert.equal(
    error([{ op: "copy", from: "/spec/containers/5", path: "/spec/x" }]),
    "error in copy for from: '/spec/containers/5': Unable to access invalid index: 5: invalid index referenced",
  );
});

test("a failed test drops the whole patch without an error; an absent or null value passes only a test without a value", () => {
  const doc = pod();
  const dropped = applyJsonPatchV4(doc, [
    { op: "add", path: "/metadata/labels/t", value: "y" },
    { op: "test", path: "/metadata/name", value: "zzz" },
  ]);
  assert.deepEqual(dropped, { ok: true, value: doc, testFailed: true });
  assert.equal(applyJsonPatchV4(pod(), [{ op: "test", path: "/metadata/nope" }]).ok, true);
  assert.deepEqual(applyJsonPatchV4(pod(), [{ op: "test", path: "/metadata/annotations/n" }]), {
    ok: true,
    value: pod(),
    testFailed: false,
  });
  const nullValue = applyJsonPatchV4(pod(), [{ op: "test", path: "/metadata/nope", value: null }]);
  assert.equal(nullValue.ok && nullValue.testFailed, true);
  assert.equal(
    error([{ op: "test", path: "/spec/containers/5", value: 1 }]),
    "error in test for path: '/spec/containers/5': Unable to access invalid index: 5: invalid index referenced",
  );
});

test("an unknown operation, escaped keys, and the CEL value's operations", () => {
  assert.equal(error([{ op: "frob", path: "/x" }]), "Unexpected kind: frob");
  const out = patched([{ op: "add", path: "/metadata/labels/a~1b", value: "v" }]);
  assert.equal(((out as JsonObject)["metadata"] as JsonObject)["labels"] !== undefined, true);
  assert.deepEqual((((out as JsonObject)["metadata"] as JsonObject)["labels"] as JsonObject)["a/b"], "v");
  assert.deepEqual(
    operationsV4([
      { op: "add", path: "/a", from: "", value: null },
      { op: "remove", path: "/b" },
    ]),
    [
      { op: "add", path: "/a", value: null },
      { op: "remove", path: "/b" },
    ],
  );
  assert.equal(operationsV4({ op: "add" }), "a jsonPatch expression must build a list of JSONPatch{…}");
});

test("a key named __proto__ is an own key", () => {
  const out = patched([{ op: "add", path: "/metadata/labels/__proto__", value: "v" }]) as JsonObject;
  const labels = (out["metadata"] as JsonObject)["labels"] as JsonObject;
  assert.equal(Object.hasOwn(labels, "__proto__"), true);
  assert.equal(Object.getPrototypeOf(labels), Object.prototype);
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../api/json.js";
import { applyJsonPatch } from "./apply.js";
import type { JsonPatchOp } from "./types.js";

function failure(doc: JsonValue, ops: JsonPatchOp[]): string {
  const r = applyJsonPatch(doc, ops);
  assert.equal(r.ok, false, `expected an error, got ${JSON.stringify(r.ok ? r.value : null)}`);
  return r.ok ? "" : r.error.message;
}

const P = "patchesJson6902: ";
const pod = { metadata: { name: "web" }, spec: { replicas: 1, containers: [{ name: "a" }, { name: "b" }] } };

describe("errors name the operation, its path and the reason", () => {
  const cases: [string, JsonValue, JsonPatchOp[], string][] = [
    [
      "replace a missing key",
      pod,
      [
        { op: "test", path: "/metadata/name", value: "web" },
        { op: "replace", path: "/spec/hostname", value: "h" },
      ],
      `${P}operation 1 (replace /spec/hostname): the path does not exist in the resource`,
    ],
    [
      "replace below a missing parent",
      { metadata: {} },
      [{ op: "replace", path: "/spec/replicas", value: 3 }],
      `${P}operation 0 (replace /spec/replicas): the path does not exist in the resource (/spec is missing)`,
    ],
    [
      "replace below a scalar",
      pod,
      [{ op: "replace", path: "/spec/replicas/x", value: 3 }],
      `${P}operation 0 (replace /spec/replicas/x): the path does not exist in the resource (/spec/replicas is a number)`,
    ],
    [
      "replace an index out of range",
      pod,
      [{ op: "replace", path: "/spec/containers/2", value: {} }],
      `${P}operation 0 (replace /spec/containers/2): the path does not exist in the resource (index 2 is out of range for an array of length 2)`,
    ],
    [
      "replace with a negative index below -length",
      pod,
      [{ op: "replace", path: "/spec/containers/-3", value: {} }],
      `${P}operation 0 (replace /spec/containers/-3): the path does not exist in the resource (index -3 is out of range for an array of length 2)`,
    ],
    [
      "replace - in an array",
      pod,
      [{ op: "replace", path: "/spec/containers/-", value: {} }],
      `${P}operation 0 (replace /spec/containers/-): "-" is not an index into the array there (length 2)`,
    ],
    [
      "add past the end of an array",
      pod,
      [{ op: "add", path: "/spec/containers/3", value: {} }],
      `${P}operation 0 (add /spec/containers/3): index 3 is out of range for an array of length 2 (use "-" to append)`,
    ],
    [
      "add below -length-1",
      pod,
      [{ op: "add", path: "/spec/containers/-4", value: {} }],
      `${P}operation 0 (add /spec/containers/-4): index -4 is out of range for an array of length 2 (use "-" to append)`,
    ],
    [
      "add with a name into an array",
      pod,
      [{ op: "add", path: "/spec/containers/name", value: "x" }],
      `${P}operation 0 (add /spec/containers/name): "name" is not an index into the array there (length 2)`,
    ],
    [
      "add below a scalar",
      pod,
      [{ op: "add", path: "/spec/replicas/x", value: 1 }],
      `${P}operation 0 (add /spec/replicas/x): cannot add below /spec/replicas: it is a number, not an object or array`,
    ],
    [
      "add through - in the middle",
      pod,
      [{ op: "add", path: "/spec/containers/-/name", value: "c" }],
      `${P}operation 0 (add /spec/containers/-/name): the path does not exist in the resource (/spec/containers/-: "-" is not an index into the array)`,
    ],
    [
      "add creating an array for an index below -1",
      { spec: {} },
      [{ op: "add", path: "/spec/l/-2", value: 1 }],
      `${P}operation 0 (add /spec/l/-2): cannot create the missing array /spec/l for index -2: only "-", -1 or an index of 0 or more may follow a missing parent`,
    ],
    [
      "add creating a parent whose name is escaped",
      { metadata: {} },
      [{ op: "add", path: "/metadata/a~1b/c", value: 1 }],
      `${P}operation 0 (add /metadata/a~1b/c): the path does not exist in the resource (/metadata/a~1b is missing, and Kyverno cannot create a missing parent whose name needs ~0 or ~1 escaping: add /metadata/a~1b in an earlier operation)`,
    ],
    [
      "add a scalar as the whole document",
      pod,
      [{ op: "add", path: "", value: "x" }],
      `${P}operation 0 (add ""): the whole document can only be replaced by an object or array (got a string)`,
    ],
    [
      "replace the whole document with null",
      pod,
      [{ op: "replace", path: "", value: null }],
      `${P}operation 0 (replace ""): the whole document can only be replaced by an object or array (got null)`,
    ],
    [
      "remove - from an array",
      pod,
      [{ op: "remove", path: "/spec/containers/-" }],
      `${P}operation 0 (remove /spec/containers/-): "-" is not an index into the array there (length 2)`,
    ],
    [
      "test a different value",
      pod,
      [{ op: "test", path: "/spec/replicas", value: 2 }],
      `${P}operation 0 (test /spec/replicas): test failed: the value at /spec/replicas is 1, not 2`,
    ],
    [
      "test a missing key against a value",
      pod,
      [{ op: "test", path: "/spec/hostname", value: "h" }],
      `${P}operation 0 (test /spec/hostname): test failed: the value at /spec/hostname is missing, not "h"`,
    ],
    [
      "test a value against null",
      pod,
      [{ op: "test", path: "/metadata/name", value: null }],
      `${P}operation 0 (test /metadata/name): test failed: the value at /metadata/name is "web", not null`,
    ],
    [
      "test compares types strictly",
      { a: "1" },
      [{ op: "test", path: "/a", value: 1 }],
      `${P}operation 0 (test /a): test failed: the value at /a is "1", not 1`,
    ],
    [
      "test below a missing parent",
      pod,
      [{ op: "test", path: "/status/phase", value: "Running" }],
      `${P}operation 0 (test /status/phase): the path does not exist in the resource (/status is missing)`,
    ],
    [
      "test an index out of range",
      pod,
      [{ op: "test", path: "/spec/containers/5", value: null }],
      `${P}operation 0 (test /spec/containers/5): the path does not exist in the resource (index 5 is out of range for an array of length 2)`,
    ],
    [
      "move the whole document",
      pod,
      [{ op: "move", from: "", path: "/x" }],
      `${P}operation 0 (move "" to /x): cannot move the whole document`,
    ],
    [
      "move from a missing key",
      pod,
      [{ op: "move", from: "/spec/x", path: "/y" }],
      `${P}operation 0 (move /spec/x to /y): "from": the path does not exist in the resource`,
    ],
    [
      "move into its own child",
      pod,
      [{ op: "move", from: "/spec", path: "/spec/inner" }],
      `${P}operation 0 (move /spec to /spec/inner): cannot move a value into one of its own children`,
    ],
    [
      "move does not create parents",
      pod,
      [{ op: "move", from: "/spec/replicas", path: "/status/replicas" }],
      `${P}operation 0 (move /spec/replicas to /status/replicas): the path does not exist in the resource (/status is missing)`,
    ],
    [
      "copy from below a missing parent",
      pod,
      [{ op: "copy", from: "/status/x", path: "/y" }],
      `${P}operation 0 (copy /status/x to /y): "from": the path does not exist in the resource (/status is missing)`,
    ],
    [
      "copy does not create parents",
      pod,
      [{ op: "copy", from: "/metadata/name", path: "/status/name" }],
      `${P}operation 0 (copy /metadata/name to /status/name): the path does not exist in the resource (/status is missing)`,
    ],
    [
      "an operation built without a value",
      pod,
      [{ op: "add", path: "/a" }],
      `${P}operation 0: "value" is required for add (write "value: null" for null)`,
    ],
    [
      "an operation built with a bad path",
      pod,
      [{ op: "remove", path: "a" }],
      `${P}operation 0: "path" must start with "/" (got "a")`,
    ],
    [
      "a path deeper than documents may be",
      {},
      [{ op: "add", path: "/a".repeat(1001), value: 1 }],
      `${P}operation 0 (add): the path is deeper than 1000 levels`,
    ],
    [
      "padding a huge index",
      {},
      [{ op: "add", path: "/l/50000", value: 1 }],
      `${P}operation 0 (add /l/50000): cannot create the missing array /l padded with 50000 nulls: at most 10000 are allowed`,
    ],
  ];
  for (const [name, doc, ops, message] of cases) test(name, () => assert.equal(failure(doc, ops), message));

  test("a failing operation discards the earlier ones and leaves the input alone", () => {
    const doc = { a: 1 };
    const r = applyJsonPatch(doc, [
      { op: "add", path: "/b", value: 2 },
      { op: "replace", path: "/c", value: 3 },
    ]);
    assert.equal(r.ok, false);
    assert.deepEqual(doc, { a: 1 });
  });

  test("move of an array element into its former neighbour succeeds, as in evanphx (remove, then add)", () => {
    const r = applyJsonPatch({ l: [{ n: 1 }, { n: 2 }] }, [{ op: "move", from: "/l/0", path: "/l/0/x" }]);
    assert.deepEqual(r, { ok: true, value: { l: [{ n: 2, x: { n: 1 } }] } });
  });
});

function deepFreeze<T>(v: T): T {
  if (typeof v === "object" && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

describe("inputs are never changed", () => {
  test("every operation kind on a frozen document with frozen operations", () => {
    const doc = deepFreeze({
      metadata: { labels: { a: "1" }, annotations: null },
      spec: { containers: [{ name: "a", env: [{ name: "X" }] }, { name: "b" }] },
    });
    const ops = deepFreeze<JsonPatchOp[]>([
      { op: "add", path: "/metadata/labels/b", value: { deep: ["x"] } },
      { op: "add", path: "/metadata/annotations/k", value: "v" },
      { op: "add", path: "/spec/containers/0/env/-", value: { name: "Y" } },
      { op: "add", path: "/spec/volumes/0/name", value: "v" },
      { op: "remove", path: "/spec/containers/1" },
      { op: "replace", path: "/spec/containers/0/name", value: "main" },
      { op: "copy", from: "/spec/containers/0", path: "/spec/initContainers" },
      { op: "move", from: "/metadata/labels/a", path: "/metadata/labels/c" },
      { op: "test", path: "/metadata/labels/c", value: "1" },
    ]);
    const before = structuredClone(doc);
    const r = applyJsonPatch(doc, ops);
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.deepEqual(doc, before);
    assert.deepEqual(r.value, {
      metadata: { labels: { b: { deep: ["x"] }, c: "1" }, annotations: { k: "v" } },
      spec: {
        containers: [{ name: "main", env: [{ name: "X" }, { name: "Y" }] }],
        volumes: [{ name: "v" }],
        initContainers: { name: "main", env: [{ name: "X" }, { name: "Y" }] },
      },
    });
  });

  test("the result does not share values with the operations", () => {
    const value = { deep: ["x"] };
    const r = applyJsonPatch({}, [{ op: "add", path: "/a", value }]);
    assert.ok(r.ok);
    assert.notEqual((r.value as { a: unknown }).a, value);
  });

  test("copy makes an independent copy", () => {
    const r = applyJsonPatch({ a: { x: [1] } }, [{ op: "copy", from: "/a", path: "/b" }]);
    assert.ok(r.ok);
    const v = r.value as { a: { x: number[] }; b: { x: number[] } };
    assert.notEqual(v.a, v.b);
    assert.notEqual(v.a.x, v.b.x);
  });
});

describe("__proto__ and other inherited names are plain keys", () => {
  test("add /__proto__/x makes an own key and leaves prototypes alone", () => {
    const r = applyJsonPatch({}, [{ op: "add", path: "/__proto__/polluted", value: "yes" }]);
    assert.ok(r.ok);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
    assert.equal(Object.getPrototypeOf(r.value), Object.prototype);
    assert.deepEqual(Object.keys(r.value as object), ["__proto__"]);
    assert.equal(JSON.stringify(r.value), '{"__proto__":{"polluted":"yes"}}');
  });

  test("an own __proto__ key is replaced, removed and tested like any other", () => {
    const doc = JSON.parse('{"__proto__":{"x":1},"k":2}') as JsonValue;
    const replaced = applyJsonPatch(doc, [{ op: "replace", path: "/__proto__/x", value: 5 }]);
    assert.equal(JSON.stringify(replaced.ok && replaced.value), '{"__proto__":{"x":5},"k":2}');
    const removed = applyJsonPatch(doc, [
      { op: "test", path: "/__proto__", value: { x: 1 } },
      { op: "remove", path: "/__proto__" },
    ]);
    assert.equal(JSON.stringify(removed.ok && removed.value), '{"k":2}');
  });

  test("inherited names are missing: replace fails, remove is a no-op, test sees null", () => {
    assert.equal(
      failure({}, [{ op: "replace", path: "/constructor", value: 1 }]),
      `${P}operation 0 (replace /constructor): the path does not exist in the resource`,
    );
    assert.equal(
      failure({}, [{ op: "replace", path: "/toString/name", value: 1 }]),
      `${P}operation 0 (replace /toString/name): the path does not exist in the resource (/toString is missing)`,
    );
    assert.deepEqual(
      applyJsonPatch({ a: 1 }, [
        { op: "remove", path: "/__proto__" },
        { op: "test", path: "/constructor", value: null },
      ]),
      { ok: true, value: { a: 1 } },
    );
  });
});

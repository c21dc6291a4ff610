import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../api/json.js";
import { applyJsonPatch } from "./apply.js";
import { parseJsonPatch } from "./parse.js";
import type { JsonPatchOp } from "./types.js";
import { pod } from "../../../../test/support/builders.js";

type Case = { name: string; doc: JsonValue; ops: JsonPatchOp[]; want: JsonValue };

function check({ name, doc, ops, want }: Case): void {
  test(name, () => {
    const before = structuredClone(doc);
    const r = applyJsonPatch(doc, ops);
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.deepEqual(r.value, want);
    assert.deepEqual(doc, before, "the input document must not change");
  });
}

const twoContainerPod = (): JsonValue =>
  pod({
    namespace: null,
    labels: { app: "web" },
    containers: [
      { name: "a", image: "nginx" },
      { name: "b", image: "redis" },
    ],
  });

describe("add", () => {
  const cases: Case[] = [
    { name: "a new object key", doc: { a: 1 }, ops: [{ op: "add", path: "/b", value: 2 }], want: { a: 1, b: 2 } },
    {
      name: "an existing key is replaced",
      doc: { a: 1 },
      ops: [{ op: "add", path: "/a", value: [1] }],
      want: { a: [1] },
    },
    { name: "null is a value", doc: { a: 1 }, ops: [{ op: "add", path: "/b", value: null }], want: { a: 1, b: null } },
    {
      name: "insert into an array at an index",
      doc: { l: [1, 2] },
      ops: [{ op: "add", path: "/l/1", value: 9 }],
      want: { l: [1, 9, 2] },
    },
    {
      name: "index 0 prepends",
      doc: { l: [1, 2] },
      ops: [{ op: "add", path: "/l/0", value: 9 }],
      want: { l: [9, 1, 2] },
    },
    {
      name: "index == length appends",
      doc: { l: [1, 2] },
      ops: [{ op: "add", path: "/l/2", value: 9 }],
      want: { l: [1, 2, 9] },
    },
    { name: "- appends", doc: { l: [1, 2] }, ops: [{ op: "add", path: "/l/-", value: 9 }], want: { l: [1, 2, 9] } },
    {
      name: "-1 appends (evanphx counts over length + 1)",
      doc: { l: [1, 2] },
      ops: [{ op: "add", path: "/l/-1", value: 9 }],
      want: { l: [1, 2, 9] },
    },
    {
      name: "-3 prepends to a list of two",
      doc: { l: [1, 2] },
      ops: [{ op: "add", path: "/l/-3", value: 9 }],
      want: { l: [9, 1, 2] },
    },
    {
      name: "escaped key ~1",
      doc: { metadata: { annotations: {} } },
      ops: [{ op: "add", path: "/metadata/annotations/kyverno.io~1x", value: "y" }],
      want: { metadata: { annotations: { "kyverno.io/x": "y" } } },
    },
    { name: "escaped key ~0", doc: {}, ops: [{ op: "add", path: "/a~0b", value: 1 }], want: { "a~b": 1 } },
    {
      name: "a container appended to a Pod",
      doc: twoContainerPod(),
      ops: [{ op: "add", path: "/spec/containers/-", value: { name: "c", image: "busybox" } }],
      want: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web", labels: { app: "web" } },
        spec: {
          containers: [
            { name: "a", image: "nginx" },
            { name: "b", image: "redis" },
            { name: "c", image: "busybox" },
          ],
        },
      },
    },
    { name: "the whole document", doc: { a: 1 }, ops: [{ op: "add", path: "", value: { b: 2 } }], want: { b: 2 } },
    {
      name: "into an element found by a negative index",
      doc: { l: [{ n: 1 }, { n: 2 }] },
      ops: [{ op: "add", path: "/l/-1/m", value: 3 }],
      want: { l: [{ n: 1 }, { n: 2, m: 3 }] },
    },
  ];
  cases.forEach(check);
});

describe("add creates missing parents (EnsurePathExistsOnAdd)", () => {
  const cases: Case[] = [
    {
      name: "missing objects",
      doc: { metadata: {} },
      ops: [{ op: "add", path: "/metadata/annotations/a/b", value: "x" }],
      want: { metadata: { annotations: { a: { b: "x" } } } },
    },
    {
      name: "an array when the next token is 0",
      doc: { spec: {} },
      ops: [{ op: "add", path: "/spec/initContainers/0", value: { name: "i" } }],
      want: { spec: { initContainers: [{ name: "i" }] } },
    },
    {
      name: "an array when the next token is -",
      doc: { spec: {} },
      ops: [{ op: "add", path: "/spec/tolerations/-", value: { key: "k" } }],
      want: { spec: { tolerations: [{ key: "k" }] } },
    },
    {
      name: "an array when the next token is -1",
      doc: {},
      ops: [{ op: "add", path: "/l/-1", value: 1 }],
      want: { l: [1] },
    },
    {
      name: "an array then an object inside it",
      doc: { spec: {} },
      ops: [{ op: "add", path: "/spec/volumes/0/name", value: "v" }],
      want: { spec: { volumes: [{ name: "v" }] } },
    },
    {
      name: "a new array is padded with nulls up to the index",
      doc: {},
      ops: [{ op: "add", path: "/l/2", value: "x" }],
      want: { l: [null, null, "x"] },
    },
    {
      name: "an existing array is padded up to a missing intermediate index",
      doc: { l: [1] },
      ops: [{ op: "add", path: "/l/3/a", value: "x" }],
      want: { l: [1, null, null, { a: "x" }] },
    },
    {
      name: "a null parent is replaced by an object",
      doc: { metadata: { annotations: null } },
      ops: [{ op: "add", path: "/metadata/annotations/a", value: "x" }],
      want: { metadata: { annotations: { a: "x" } } },
    },
    {
      name: "a null array element gets a new object inserted before it",
      doc: { l: [null] },
      ops: [{ op: "add", path: "/l/0/a", value: 1 }],
      want: { l: [{ a: 1 }, null] },
    },
    {
      name: "numeric keys in an object stay keys",
      doc: { m: {} },
      ops: [{ op: "add", path: "/m/0/x", value: 1 }],
      want: { m: { "0": { x: 1 } } },
    },
  ];
  cases.forEach(check);
});

describe("remove", () => {
  const cases: Case[] = [
    { name: "an object key", doc: { a: 1, b: 2 }, ops: [{ op: "remove", path: "/a" }], want: { b: 2 } },
    { name: "an array element", doc: { l: [1, 2, 3] }, ops: [{ op: "remove", path: "/l/1" }], want: { l: [1, 3] } },
    {
      name: "the last element by -1",
      doc: { l: [1, 2, 3] },
      ops: [{ op: "remove", path: "/l/-1" }],
      want: { l: [1, 2] },
    },
    {
      name: "the first element by -length",
      doc: { l: [1, 2, 3] },
      ops: [{ op: "remove", path: "/l/-3" }],
      want: { l: [2, 3] },
    },
    {
      name: "an escaped label key",
      doc: { labels: { "app.kubernetes.io/name": "x", k: "v" } },
      ops: [{ op: "remove", path: "/labels/app.kubernetes.io~1name" }],
      want: { labels: { k: "v" } },
    },
    { name: "a missing key is a no-op", doc: { a: 1 }, ops: [{ op: "remove", path: "/b" }], want: { a: 1 } },
    { name: "a missing parent is a no-op", doc: { a: 1 }, ops: [{ op: "remove", path: "/x/y/z" }], want: { a: 1 } },
    {
      name: "a path through a scalar is a no-op",
      doc: { a: 1 },
      ops: [{ op: "remove", path: "/a/b" }],
      want: { a: 1 },
    },
    {
      name: "a path through null is a no-op",
      doc: { a: null },
      ops: [{ op: "remove", path: "/a/b" }],
      want: { a: null },
    },
    {
      name: "an index past the end is a no-op (evanphx with AllowMissingPathOnRemove)",
      doc: { l: [1] },
      ops: [{ op: "remove", path: "/l/5" }],
      want: { l: [1] },
    },
    {
      name: "a negative index before the start is a no-op",
      doc: { l: [1] },
      ops: [{ op: "remove", path: "/l/-2" }],
      want: { l: [1] },
    },
    {
      name: "a non-index token through an array is a no-op",
      doc: { l: [{ a: 1 }] },
      ops: [{ op: "remove", path: "/l/x/a" }],
      want: { l: [{ a: 1 }] },
    },
    { name: "a null value is removed", doc: { a: null, b: 1 }, ops: [{ op: "remove", path: "/a" }], want: { b: 1 } },
  ];
  cases.forEach(check);
});

describe("replace", () => {
  const cases: Case[] = [
    {
      name: "an object key",
      doc: { spec: { replicas: 1 } },
      ops: [{ op: "replace", path: "/spec/replicas", value: 3 }],
      want: { spec: { replicas: 3 } },
    },
    {
      name: "a key holding null",
      doc: { a: null },
      ops: [{ op: "replace", path: "/a", value: "x" }],
      want: { a: "x" },
    },
    {
      name: "an array element",
      doc: { l: [1, 2] },
      ops: [{ op: "replace", path: "/l/0", value: 9 }],
      want: { l: [9, 2] },
    },
    {
      name: "the last element by -1",
      doc: { l: [1, 2] },
      ops: [{ op: "replace", path: "/l/-1", value: 9 }],
      want: { l: [1, 9] },
    },
    {
      name: "the image of the second container",
      doc: twoContainerPod(),
      ops: [{ op: "replace", path: "/spec/containers/1/image", value: "redis:7" }],
      want: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web", labels: { app: "web" } },
        spec: {
          containers: [
            { name: "a", image: "nginx" },
            { name: "b", image: "redis:7" },
          ],
        },
      },
    },
    {
      name: "the whole document",
      doc: { a: 1 },
      ops: [{ op: "replace", path: "", value: { b: [] } }],
      want: { b: [] },
    },
  ];
  cases.forEach(check);
});

describe("move, copy and test", () => {
  const cases: Case[] = [
    {
      name: "move a key",
      doc: { a: { x: 1 }, b: {} },
      ops: [{ op: "move", from: "/a/x", path: "/b/y" }],
      want: { a: {}, b: { y: 1 } },
    },
    {
      name: "move within an array",
      doc: { l: [1, 2, 3] },
      ops: [{ op: "move", from: "/l/0", path: "/l/-" }],
      want: { l: [2, 3, 1] },
    },
    {
      name: "move to the same place",
      doc: { l: [1, 2, 3] },
      ops: [{ op: "move", from: "/l/1", path: "/l/1" }],
      want: { l: [1, 2, 3] },
    },
    {
      name: "move from the last element by -1",
      doc: { l: [1, 2, 3], m: [] },
      ops: [{ op: "move", from: "/l/-1", path: "/m/0" }],
      want: { l: [1, 2], m: [3] },
    },
    {
      name: "copy a value",
      doc: { a: { x: [1] } },
      ops: [{ op: "copy", from: "/a", path: "/b" }],
      want: { a: { x: [1] }, b: { x: [1] } },
    },
    {
      name: "copy into an array",
      doc: { l: ["x"] },
      ops: [{ op: "copy", from: "/l/0", path: "/l/0" }],
      want: { l: ["x", "x"] },
    },
    {
      name: "test passes on an equal value (key order irrelevant)",
      doc: { a: { x: 1, y: [true, null] } },
      ops: [
        { op: "test", path: "/a", value: { y: [true, null], x: 1 } },
        { op: "add", path: "/ok", value: 1 },
      ],
      want: { a: { x: 1, y: [true, null] }, ok: 1 },
    },
    {
      name: "test compares numbers by value",
      doc: { a: 1 },
      ops: [{ op: "test", path: "/a", value: 1.0 }],
      want: { a: 1 },
    },
    {
      name: "test null on a missing key passes (evanphx)",
      doc: { a: 1 },
      ops: [{ op: "test", path: "/b", value: null }],
      want: { a: 1 },
    },
    {
      name: "test null on a null value passes",
      doc: { a: null },
      ops: [{ op: "test", path: "/a", value: null }],
      want: { a: null },
    },
    {
      name: "test an array element by -1",
      doc: { l: [1, 2] },
      ops: [{ op: "test", path: "/l/-1", value: 2 }],
      want: { l: [1, 2] },
    },
    {
      name: "test the whole document",
      doc: { a: 1 },
      ops: [{ op: "test", path: "", value: { a: 1 } }],
      want: { a: 1 },
    },
  ];
  cases.forEach(check);
});

describe('"" in remove and as a move or copy destination names the key "" (as evanphx resolves it)', () => {
  const cases: Case[] = [
    { name: 'remove "" without a "" key is a no-op', doc: { a: 1 }, ops: [{ op: "remove", path: "" }], want: { a: 1 } },
    { name: 'remove "" removes the "" key', doc: { "": 0, a: 1 }, ops: [{ op: "remove", path: "" }], want: { a: 1 } },
    {
      name: 'copy to "" sets the "" key',
      doc: { a: 1 },
      ops: [{ op: "copy", from: "/a", path: "" }],
      want: { a: 1, "": 1 },
    },
    {
      name: 'copy from "" copies the whole document',
      doc: { a: 1 },
      ops: [{ op: "copy", from: "", path: "/b" }],
      want: { a: 1, b: { a: 1 } },
    },
  ];
  cases.forEach(check);
});

describe("operations apply in order", () => {
  test("each sees the result of the previous ones", () => {
    const ops = parseJsonPatch(`
- op: add
  path: /metadata/labels/env
  value: prod
- op: test
  path: /metadata/labels/env
  value: prod
- op: copy
  from: /metadata/labels
  path: /spec/template/metadata/labels
- op: remove
  path: /metadata/labels/app
`);
    assert.ok(ops.ok);
    const r = applyJsonPatch({ metadata: { labels: { app: "x" } }, spec: { template: { metadata: {} } } }, ops.value);
    assert.deepEqual(r, {
      ok: true,
      value: {
        metadata: { labels: { env: "prod" } },
        spec: { template: { metadata: { labels: { app: "x", env: "prod" } } } },
      },
    });
  });

  test("YAML 1.1 booleans in values land as booleans", () => {
    const ops = parseJsonPatch(
      "- {op: add, path: /spec/hostNetwork, value: yes}\n- {op: add, path: /spec/enableServiceLinks, value: off}",
    );
    assert.ok(ops.ok);
    assert.deepEqual(applyJsonPatch({ spec: {} }, ops.value), {
      ok: true,
      value: { spec: { hostNetwork: true, enableServiceLinks: false } },
    });
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject, JsonValue } from "../api/json.js";
import { fakeScope } from "../../../test/support/fake-jmespath.js";
import { currentValuePath, rewriteExpression } from "./resolve-variable.js";
import { substituteAll } from "./substitute-all.js";

const data = (): JsonObject => ({
  request: {
    object: {
      metadata: { name: "nginx", labels: { "app.kubernetes.io/name": "web" } },
      spec: { replicas: 3, containers: [{ name: "c1", image: "ghcr.io/nginx:1" }] },
    },
  },
  templated: { inner: "{{ request.object.metadata.name }}", "{{ request.object.metadata.name }}-key": 1 },
  nothing: null,
});

function sub(value: JsonValue, extra: Parameters<typeof fakeScope>[1] = {}, d: JsonObject = data()) {
  return substituteAll(value, fakeScope(d, extra));
}

describe("documents", () => {
  test("substitutes every string value, at any depth, keeping other values", () => {
    const doc = {
      a: ["{{ request.object.metadata.name }}", 1, true, null],
      b: { c: "n={{ request.object.spec.replicas }}" },
    };
    assert.deepEqual(sub(doc), { ok: true, value: { a: ["nginx", 1, true, null], b: { c: "n=3" } } });
  });

  test("does not modify its input", () => {
    const doc = { a: "{{ request.object.metadata.name }}", "{{ request.object.metadata.name }}": "k" };
    const before = structuredClone(doc);
    sub(doc);
    assert.deepEqual(doc, before);
  });

  // Kyverno's traversal walks into a map or list a variable gave and substitutes its strings and keys;
  // Bylaw does not: only the policy's text is a template (tenant-isolation.md; known-gaps.tsv).
  test("a typed value is data: its strings and keys are not substituted again (Kyverno: they are)", () => {
    const templated = data()["templated"];
    assert.deepEqual(sub({ x: "{{ templated }}" }), { ok: true, value: { x: templated } });
  });

  test("a string that is one variable takes its typed value; a map it gives is not traversed (Kyverno: it is)", () => {
    assert.deepEqual(sub("{{ request.object.spec.replicas }}"), { ok: true, value: 3 });
    assert.deepEqual(sub("{{ templated }}"), { ok: true, value: data()["templated"] });
    assert.deepEqual(sub("{{ nothing }}"), { ok: true, value: null });
    const r = sub("{{ nope }}", { basePath: "/validate/deny" });
    assert.ok(!r.ok && r.error.path === "/validate/deny");
  });

  test("errors name the path of the string, with / in keys escaped", () => {
    const r = sub({ spec: { list: ["ok", "{{ request.object.nope }}"], "a/b": "fine" } });
    assert.ok(!r.ok);
    assert.equal(
      r.error.message,
      'failed to resolve request.object.nope at path /spec/list/1: JMESPath query failed: Unknown key "nope" in path',
    );
    assert.equal(r.error.path, "/spec/list/1");
    const r2 = sub({ "a/b": "{{ nope }}" });
    assert.ok(!r2.ok && r2.error.path === "/a\\/b");
  });

  test("basePath prefixes every path", () => {
    const r = sub({ x: "{{ nope }}" }, { basePath: "/validate/pattern" });
    assert.ok(!r.ok && r.error.path === "/validate/pattern/x");
  });
});

describe("map keys", () => {
  test("are substituted, keeping their position", () => {
    const r = sub({ first: 1, "{{ request.object.metadata.name }}": 2, last: 3 });
    assert.ok(r.ok);
    assert.deepEqual(Object.entries(r.value as JsonObject), [
      ["first", 1],
      ["nginx", 2],
      ["last", 3],
    ]);
  });

  test("a key that becomes null keeps its original text", () => {
    assert.deepEqual(sub({ "{{ nothing }}": 1 }), { ok: true, value: { "{{ nothing }}": 1 } });
  });

  test("a key that becomes a non-string is an error", () => {
    const r = sub({ a: { "{{ request.object.spec.replicas }}": 1 } });
    assert.ok(!r.ok);
    assert.equal(
      r.error.message,
      'expected string after substituting variables in key "{{ request.object.spec.replicas }}"',
    );
    assert.equal(r.error.path, "/a");
  });

  test("a failing key reports the path of its map", () => {
    const r = sub({ a: { "{{ nope }}": 1 } });
    assert.ok(!r.ok && r.error.message.startsWith("failed to resolve nope at path /a:"));
  });
});

describe("{{@}}: the current value", () => {
  const pod = { spec: { containers: [{ image: "{{@}}" }] } };

  test("reads request.object at the same path, skipping the two rule-part components", () => {
    const r = sub(pod, { basePath: "/mutate/patchStrategicMerge" });
    assert.deepEqual(r, { ok: true, value: { spec: { containers: [{ image: "ghcr.io/nginx:1" }] } } });
  });

  test("inside foreach, skips past `foreach` first", () => {
    const r = sub(pod, { basePath: "/mutate/foreach/0/patchStrategicMerge" });
    assert.deepEqual(r, { ok: true, value: { spec: { containers: [{ image: "ghcr.io/nginx:1" }] } } });
  });

  test("reads target.* when a target is in scope", () => {
    const d = { ...data(), target: { spec: { containers: [{ image: "target:2" }] } } };
    assert.deepEqual(sub(pod, { basePath: "/mutate/patchStrategicMerge" }, d), {
      ok: true,
      value: { spec: { containers: [{ image: "target:2" }] } },
    });
    assert.deepEqual(sub(pod, { basePath: "/mutate/patchStrategicMerge", target: false }, d), {
      ok: true,
      value: { spec: { containers: [{ image: "ghcr.io/nginx:1" }] } },
    });
  });

  test("can be nested inside a larger expression", () => {
    const doc = { metadata: { name: "{{ '{{@}}' }}" } };
    assert.deepEqual(sub(doc, { basePath: "/mutate/patchStrategicMerge" }), {
      ok: true,
      value: { metadata: { name: "nginx" } },
    });
  });

  test("quotes keys that are not plain identifiers", () => {
    const scope = fakeScope(data());
    assert.equal(
      currentValuePath("/mutate/patchStrategicMerge/metadata/labels/app.kubernetes.io\\/name", scope),
      'request.object.metadata.labels."app.kubernetes.io/name"',
    );
  });

  test("is rewritten only when it is the whole variable; DELETE applies after", () => {
    const scope = fakeScope(data(), { operation: "DELETE" });
    assert.equal(rewriteExpression("length(@)", "/a/b/c", scope), "length(@)");
    assert.equal(rewriteExpression("@", "/mutate/patchStrategicMerge/spec", scope), "request.oldObject.spec");
  });
});

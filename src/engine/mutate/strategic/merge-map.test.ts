import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { schemaForKind, strategicMerge, strategicMergeResource } from "./index.js";
import { at, deepFreeze, deployment, nginx, frozenPod } from "../../../../test/support/strategic-merge-cases.js";

function merge(resource: JsonObject, patch: JsonObject): JsonObject {
  const merged = strategicMergeResource(resource, deepFreeze(patch));
  assert.ok(merged.ok, merged.ok ? "" : merged.error.message);
  return merged.value;
}

describe("maps", () => {
  const base = frozenPod(
    { containers: [nginx], securityContext: { runAsUser: 1000, fsGroup: 2000 } },
    { labels: { app: "web", tier: "frontend" } },
  );

  test("merge key by key; scalars replace", () => {
    const out = merge(base, {
      metadata: { labels: { tier: "edge", team: "payments" } },
      spec: { securityContext: { runAsNonRoot: true } },
    });
    assert.deepEqual(at(out, "metadata", "labels"), { app: "web", tier: "edge", team: "payments" });
    assert.deepEqual(at(out, "spec", "securityContext"), { runAsUser: 1000, fsGroup: 2000, runAsNonRoot: true });
    assert.deepEqual(at(out, "spec", "containers"), [nginx]);
  });

  test("existing keys keep their place; new keys follow in sorted order", () => {
    const out = merge(base, { metadata: { labels: { zone: "a", app: "api", env: "prod" } } });
    assert.deepEqual(Object.keys(at(out, "metadata", "labels") as JsonObject), ["app", "tier", "env", "zone"]);
  });

  test("null deletes a key, a map or a list; null for an absent key adds nothing", () => {
    const out = merge(base, {
      metadata: { labels: { tier: null, missing: null } },
      spec: { securityContext: null, containers: [{ name: "nginx", args: null }] },
    });
    assert.deepEqual(at(out, "metadata", "labels"), { app: "web" });
    assert.equal(Object.hasOwn(at(out, "spec") as JsonObject, "securityContext"), false);
    assert.equal(Object.hasOwn(at(out, "spec", "containers", 0) as JsonObject, "args"), false);
  });

  test("a patch map where the resource has none (or null) is the patch map, nulls and directives removed", () => {
    const out = merge(frozenPod({ containers: [nginx], affinity: null }), {
      metadata: { annotations: { "example.com/owner": "team-a", stale: null } },
      spec: {
        affinity: {
          $patch: "merge",
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
          podAffinity: null,
        },
      },
    });
    assert.deepEqual(at(out, "metadata", "annotations"), { "example.com/owner": "team-a" });
    assert.deepEqual(at(out, "spec", "affinity"), {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
    });
  });

  test("an empty map is kept (emptyDir: {})", () => {
    const out = merge(frozenPod({ containers: [nginx] }), { spec: { volumes: [{ name: "scratch", emptyDir: {} }] } });
    assert.deepEqual(at(out, "spec", "volumes"), [{ name: "scratch", emptyDir: {} }]);
  });

  test("an empty patch changes nothing", () => {
    const resource = deployment({ containers: [nginx] });
    assert.deepEqual(merge(resource, {}), resource);
  });
});

describe("custom resources and unknown schema", () => {
  const widget = deepFreeze({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w", finalizers: ["example.com/a"] },
    spec: { size: 3, containers: [{ name: "a", image: "a" }], options: { color: "red", shape: "round" } },
  });

  test("schemaForKind does not know them", () => {
    assert.equal(schemaForKind("example.com/v1", "Widget"), undefined);
  });

  test("maps merge, null deletes, and every list replaces (even named ones, even finalizers)", () => {
    const out = merge(widget, {
      metadata: { finalizers: ["example.com/b"] },
      spec: { containers: [{ name: "b", image: "b" }], options: { shape: null, size: "L" } },
    });
    assert.deepEqual(at(out, "metadata", "finalizers"), ["example.com/b"]);
    assert.deepEqual(at(out, "spec", "containers"), [{ name: "b", image: "b" }]);
    assert.deepEqual(at(out, "spec", "options"), { color: "red", size: "L" });
  });

  test("$retainKeys and the other map directives are plain keys there", () => {
    const out = merge(widget, { spec: { options: { $retainKeys: ["color"], "$setElementOrder/x": [] } } });
    assert.deepEqual(at(out, "spec", "options"), {
      color: "red",
      shape: "round",
      $retainKeys: ["color"],
      "$setElementOrder/x": [],
    });
  });

  test("$patch on a map still applies (kyaml reads it without a schema)", () => {
    const out = merge(widget, { spec: { options: { $patch: "replace", color: "blue" } } });
    assert.deepEqual(at(out, "spec", "options"), { color: "blue" });
  });

  test("strategicMerge without a schema node merges plain values", () => {
    const merged = strategicMerge({ a: [1, 2], b: { c: 1 } }, deepFreeze({ a: [3], b: { d: 2 } }), undefined);
    assert.ok(merged.ok);
    assert.deepEqual(merged.value, { a: [3], b: { c: 1, d: 2 } });
  });
});

describe("inputs are never modified", () => {
  test("resource and patch are unchanged, the result is a new object", () => {
    const resource = deployment({ containers: [nginx], volumes: [{ name: "cache", emptyDir: {} }] });
    const snapshot = structuredClone(resource);
    const patch = deepFreeze({
      metadata: { labels: { a: "b" }, finalizers: ["x"] },
      spec: {
        template: {
          spec: {
            containers: [{ name: "nginx", env: [{ name: "MODE", $patch: "delete" }] }, { name: "new" }],
            volumes: [{ name: "cache", $retainKeys: ["name", "secret"], secret: { secretName: "s" } }],
          },
        },
      },
    });
    const merged = strategicMergeResource(resource, patch);
    assert.ok(merged.ok);
    assert.notEqual(merged.value, resource);
    assert.deepEqual(resource, snapshot);
    assert.deepEqual(at(merged.value, "spec", "template", "spec", "containers", 0, "env"), [
      { name: "LOG_LEVEL", value: "info" },
    ]);
  });
});

describe("errors name the path", () => {
  const cases: [string, JsonObject, JsonObject, string][] = [
    [
      "an unknown $patch in a list element",
      frozenPod({ containers: [nginx] }),
      { spec: { containers: [{ name: "nginx", $patch: "explode" }] } },
      'spec.containers[name=nginx]: $patch: "explode" is not a directive (use replace, delete or merge)',
    ],
    [
      "an unknown $patch in a map",
      frozenPod({ containers: [nginx] }),
      { spec: { securityContext: { $patch: 1 } } },
      "spec.securityContext: $patch: 1 is not a directive (use replace, delete or merge)",
    ],
    [
      "an unknown list directive",
      frozenPod({ containers: [nginx] }),
      { spec: { containers: [{ $patch: "clear" }] } },
      'spec.containers: $patch: "clear" is not a directive (use replace, delete or merge)',
    ],
    [
      "a map where the resource has a list",
      frozenPod({ containers: [nginx] }),
      { spec: { containers: { name: "nginx" } } },
      "spec.containers: cannot merge a map into a list",
    ],
    [
      "a list where the resource has a scalar",
      deployment({ containers: [nginx] }),
      { spec: { replicas: [3] } },
      "spec.replicas: cannot merge a list into a number",
    ],
    [
      "a scalar where the resource has a map",
      frozenPod({ containers: [nginx] }),
      { metadata: "web" },
      "metadata: cannot merge a string into a map",
    ],
    [
      "$retainKeys that is not a list of names",
      deployment({ containers: [nginx] }),
      { spec: { strategy: { $retainKeys: "type" } } },
      "spec.strategy.$retainKeys: $retainKeys must be a list of field names",
    ],
    [
      "$setElementOrder that is not a list",
      frozenPod({ containers: [nginx] }),
      { spec: { "$setElementOrder/containers": { name: "nginx" } } },
      "spec.$setElementOrder/containers: $setElementOrder must be a list",
    ],
    [
      "$patch: delete on the whole resource",
      frozenPod({ containers: [nginx] }),
      { $patch: "delete" },
      "(root): the patch deletes the whole value",
    ],
  ];
  for (const [name, resource, patch, message] of cases) {
    test(name, () => {
      const merged = strategicMergeResource(resource, deepFreeze(patch));
      assert.equal(merged.ok, false);
      if (merged.ok) return;
      assert.ok(merged.error.message.startsWith(message), merged.error.message);
      assert.equal(merged.error.kind, "strategic-merge");
    });
  }
});

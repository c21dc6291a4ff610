import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { generateResources } from "./generate-resources.js";
import { input } from "../../../test/support/generate-inputs.js";

function only(generate: JsonObject) {
  const r = generateResources(input(generate));
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(r.value.length, 1);
  const first = r.value[0];
  assert.ok(first);
  return first;
}

describe("generate.data", () => {
  test("the data body gets the rule's apiVersion, kind, name and namespace", () => {
    const g = only({
      apiVersion: "v1",
      kind: "ResourceQuota",
      name: "default-resourcequota",
      namespace: "hello-world-namespace",
      data: { spec: { hard: { "requests.cpu": "4", "requests.memory": "16Gi" } } },
    });
    assert.deepEqual(g.resource, {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "default-resourcequota", namespace: "hello-world-namespace" },
      spec: { hard: { "requests.cpu": "4", "requests.memory": "16Gi" } },
    });
    assert.equal(g.synchronize, false);
    assert.equal(g.orphanDownstreamOnPolicyDelete, false);
    assert.equal(g.source, undefined);
  });

  test("neither data nor clone generates the object with its metadata only (Kyverno)", () => {
    const g = only({ apiVersion: "v1", kind: "ConfigMap", name: "marker", namespace: "team-a" });
    assert.deepEqual(g.resource, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "marker", namespace: "team-a" },
    });
    assert.equal(g.source, undefined);
  });

  const cases: { name: string; generate: JsonObject; want: JsonObject }[] = [
    {
      name: "data's own metadata is kept, its name and namespace give way to the rule's",
      generate: {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "zk",
        namespace: "team",
        data: {
          metadata: {
            name: "other",
            namespace: "elsewhere",
            labels: { somekey: "somevalue" },
            annotations: { a: "b" },
          },
          data: { ZK_ADDRESS: "192.168.10.10:2181" },
        },
      },
      want: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "zk", namespace: "team", labels: { somekey: "somevalue" }, annotations: { a: "b" } },
        data: { ZK_ADDRESS: "192.168.10.10:2181" },
      },
    },
    {
      name: "apiVersion and kind written inside data are replaced by the rule's",
      generate: {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "c",
        namespace: "n",
        data: { apiVersion: "v2", kind: "Secret", data: {} },
      },
      want: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n" }, data: {} },
    },
    {
      name: "no namespace (cluster-scoped kind): none is written, and data's own is removed",
      generate: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        name: "ns-admin",
        data: { metadata: { namespace: "x" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] },
      },
      want: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "ns-admin" },
        rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
      },
    },
    {
      name: "an empty data object gives just the identity",
      generate: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "", data: {} },
      want: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } },
    },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(only(c.generate).resource, c.want));

  test("synchronize and orphanDownstreamOnPolicyDelete are carried through", () => {
    const g = only({
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "c",
      namespace: "n",
      synchronize: true,
      orphanDownstreamOnPolicyDelete: true,
      data: {},
    });
    assert.equal(g.synchronize, true);
    assert.equal(g.orphanDownstreamOnPolicyDelete, true);
  });
});

describe("generate errors", () => {
  const base = { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "n" };
  const cases: { name: string; generate: JsonObject; path: string; message: RegExp }[] = [
    {
      name: "data is a string",
      generate: { ...base, data: "text" },
      path: "generate.data",
      message: /generate\.data must be an object .*ConfigMap.*got string "text"/,
    },
    {
      name: "data is a list",
      generate: { ...base, data: [1] },
      path: "generate.data",
      message: /must be an object.*got a list/,
    },
    {
      name: "data.metadata is not an object",
      generate: { ...base, data: { metadata: "m" } },
      path: "generate.data.metadata",
      message: /metadata must be an object/,
    },
    {
      name: "name missing",
      generate: { apiVersion: "v1", kind: "ConfigMap", data: {} },
      path: "generate.name",
      message: /generate\.name is empty/,
    },
    {
      name: "kind missing",
      generate: { apiVersion: "v1", name: "c", data: {} },
      path: "generate.kind",
      message: /generate\.kind is empty/,
    },
    {
      name: "apiVersion missing",
      generate: { kind: "ConfigMap", name: "c", data: {} },
      path: "generate.apiVersion",
      message: /generate\.apiVersion is empty/,
    },
    {
      name: "kind of the wrong type",
      generate: { ...base, kind: 3, data: {} },
      path: "generate.kind",
      message: /generate\.kind: must be a string, got number 3/,
    },
    {
      name: "synchronize not a boolean",
      generate: { ...base, synchronize: "yes", data: {} },
      path: "generate.synchronize",
      message: /must be true or false/,
    },
    {
      name: "data and clone together",
      generate: { ...base, data: {}, clone: { namespace: "d", name: "s" } },
      path: "generate",
      message: /only one of data, clone or cloneList.*data and clone/,
    },
    {
      name: "an unexpanded foreach",
      generate: { foreach: [{ list: "x" }] },
      path: "generate.foreach",
      message: /expanded by the caller/,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const r = generateResources(input(c.generate));
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.path, c.path);
      assert.match(r.error.message, c.message);
    });
  }
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { generateResources } from "./generate-resources.js";
import { input, memoryExisting, secret } from "../../../test/support/generate-inputs.js";

const serverSet: JsonObject = {
  uid: "u-1",
  resourceVersion: "123",
  creationTimestamp: "2024-01-01T00:00:00Z",
  generation: 3,
  managedFields: [{ manager: "kubectl" }],
  selfLink: "/api/v1/namespaces/default/secrets/regcred",
  deletionTimestamp: "2024-01-02T00:00:00Z",
  ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "o-1" }],
};

const source: Resource = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "regcred", namespace: "default", labels: { app: "x" }, annotations: { note: "y" }, ...serverSet },
  type: "kubernetes.io/dockerconfigjson",
  data: { ".dockerconfigjson": "e30=" },
  status: { phase: "whatever" },
};

function clone(generate: JsonObject, objects: readonly Resource[] = [source]) {
  const existing = memoryExisting(objects);
  return { r: generateResources(input(generate, { existing })), calls: existing.calls };
}

const rule = {
  apiVersion: "v1",
  kind: "Secret",
  name: "regcred",
  namespace: "hello-world-namespace",
  clone: { namespace: "default", name: "regcred" },
};

describe("generate.clone", () => {
  test("copies the source into the rule's namespace without server-set metadata or status", () => {
    const { r, calls } = clone(rule);
    assert.ok(r.ok);
    assert.equal(r.value.length, 1);
    assert.deepEqual(r.value[0]?.resource, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "regcred",
        namespace: "hello-world-namespace",
        labels: { app: "x" },
        annotations: { note: "y" },
      },
      type: "kubernetes.io/dockerconfigjson",
      data: { ".dockerconfigjson": "e30=" },
    });
    assert.deepEqual(r.value[0]?.source, { apiVersion: "v1", kind: "Secret", namespace: "default", name: "regcred" });
    assert.deepEqual(calls, ["get v1 Secret default regcred"]);
  });

  test("a copy in the source's own namespace keeps its ownerReferences", () => {
    const { r } = clone({ ...rule, name: "regcred-copy", namespace: "default" });
    assert.ok(r.ok);
    const meta = r.value[0]?.resource["metadata"] as JsonObject;
    assert.equal(meta["name"], "regcred-copy");
    assert.deepEqual(meta["ownerReferences"], serverSet["ownerReferences"]);
    assert.equal(meta["uid"], undefined);
  });

  test("copying an object onto itself generates nothing", () => {
    const { r } = clone({ ...rule, namespace: "default" });
    assert.ok(r.ok);
    assert.deepEqual(r.value, []);
  });

  test("synchronize is carried for clones", () => {
    const { r } = clone({ ...rule, synchronize: true });
    assert.ok(r.ok);
    assert.equal(r.value[0]?.synchronize, true);
  });

  const errors: {
    name: string;
    generate: JsonObject;
    objects?: Resource[];
    failWith?: string;
    message: RegExp;
    path: string;
  }[] = [
    {
      name: "a missing source",
      generate: rule,
      objects: [],
      message:
        /^source Secret default\/regcred not found; supply it \(bylaw apply -t\/--target-resource FILE; cloneSourceResource/,
      path: "generate.clone",
    },
    {
      name: "a missing cluster-scoped source names no namespace",
      generate: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        name: "copy",
        clone: { name: "view" },
      },
      objects: [],
      message: /^source ClusterRole view not found/,
      path: "generate.clone",
    },
    {
      name: "an object with another name does not count",
      generate: rule,
      objects: [secret("default", "other")],
      message: /not found/,
      path: "generate.clone",
    },
    {
      name: "the lookup fails",
      generate: rule,
      failWith: "connection refused",
      message: /cannot read the clone source Secret default\/regcred: connection refused/,
      path: "generate.clone",
    },
    {
      name: "no source name",
      generate: { ...rule, clone: { namespace: "default" } },
      message: /generate\.clone\.name is empty/,
      path: "generate.clone.name",
    },
    {
      name: "clone is not an object",
      generate: { ...rule, clone: "default/regcred" },
      message: /generate\.clone: must be an object/,
      path: "generate.clone",
    },
  ];
  for (const c of errors) {
    test(`error: ${c.name}`, () => {
      const existing = memoryExisting(c.objects ?? [source], c.failWith);
      const r = generateResources(input(c.generate, { existing }));
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.match(r.error.message, c.message);
      assert.equal(r.error.path, c.path);
    });
  }
});

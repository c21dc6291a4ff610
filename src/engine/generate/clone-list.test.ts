import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { resourceName, resourceNamespace, type Resource } from "../api/resource.js";
import { generateResources } from "./generate-resources.js";
import { input, memoryExisting, secret } from "../../../test/support/generate-inputs.js";

const cm = (namespace: string, name: string, labels: Record<string, string>): Resource => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, labels, uid: `${name}-uid` },
  data: { k: "v" },
});

const objects: Resource[] = [
  secret("default", "b-secret", {}, { allowedToBeCloned: "true" }),
  secret("default", "a-secret", {}, { allowedToBeCloned: "true" }),
  secret("default", "private", {}, { allowedToBeCloned: "false" }),
  secret("other", "c-secret", {}, { allowedToBeCloned: "true" }),
  cm("default", "settings", { allowedToBeCloned: "true" }),
  cm("default", "unlabelled", {}),
];

function run(cloneList: JsonObject, extra: JsonObject = {}) {
  const existing = memoryExisting(objects);
  const r = generateResources(input({ namespace: "target", cloneList, ...extra }, { existing }));
  return { r, calls: existing.calls };
}

const names = (rs: readonly { resource: Resource }[]): string[] =>
  rs.map((g) => `${g.resource["kind"] as string}/${resourceNamespace(g.resource)}/${resourceName(g.resource)}`);

describe("generate.cloneList", () => {
  const cases: { name: string; cloneList: JsonObject; want: string[] }[] = [
    {
      name: "matchLabels over two kinds, each kind in name order",
      cloneList: {
        namespace: "default",
        kinds: ["v1/Secret", "v1/ConfigMap"],
        selector: { matchLabels: { allowedToBeCloned: "true" } },
      },
      want: ["Secret/target/a-secret", "Secret/target/b-secret", "ConfigMap/target/settings"],
    },
    {
      name: "matchExpressions",
      cloneList: {
        namespace: "default",
        kinds: ["v1/Secret", "v1/ConfigMap"],
        selector: { matchExpressions: [{ key: "allowedToBeCloned", operator: "NotIn", values: ["true"] }] },
      },
      want: ["Secret/target/private", "ConfigMap/target/unlabelled"],
    },
    {
      name: "no selector takes every object of the kind in the namespace",
      cloneList: { namespace: "default", kinds: ["v1/ConfigMap"] },
      want: ["ConfigMap/target/settings", "ConfigMap/target/unlabelled"],
    },
    {
      name: "only the given namespace is read",
      cloneList: { namespace: "other", kinds: ["v1/Secret"] },
      want: ["Secret/target/c-secret"],
    },
    {
      name: "a kind without version",
      cloneList: { namespace: "other", kinds: ["Secret"] },
      want: ["Secret/target/c-secret"],
    },
    {
      name: "nothing matches",
      cloneList: { namespace: "default", kinds: ["v1/Secret"], selector: { matchLabels: { team: "none" } } },
      want: [],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { r } = run(c.cloneList);
      assert.ok(r.ok, r.ok ? "" : r.error.message);
      assert.deepEqual(names(r.value), c.want);
    });
  }

  test("each copy is cleaned, keeps its name and records its source", () => {
    const { r } = run(
      { namespace: "default", kinds: ["v1/ConfigMap"], selector: { matchLabels: { allowedToBeCloned: "true" } } },
      { synchronize: true },
    );
    assert.ok(r.ok);
    const g = r.value[0];
    assert.ok(g);
    assert.deepEqual(g.resource, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "settings", namespace: "target", labels: { allowedToBeCloned: "true" } },
      data: { k: "v" },
    });
    assert.deepEqual(g.source, { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "settings" });
    assert.equal(g.labels["generate.kyverno.io/source-uid"], "settings-uid");
    assert.equal(g.labels["generate.kyverno.io/source-kind"], "ConfigMap");
    assert.equal(g.synchronize, true);
  });

  test("the lookup passes the parsed apiVersion, kind, namespace and selector", () => {
    const { calls } = run({ namespace: "default", kinds: ["apps/v1/Deployment", "Secret"] });
    assert.deepEqual(calls, ["list apps/v1 Deployment default", "list  Secret default"]);
  });

  test("sources already in the target namespace are skipped (self-clone)", () => {
    const { r } = run({ namespace: "default", kinds: ["v1/Secret"] }, { namespace: "default" });
    assert.ok(r.ok);
    assert.deepEqual(r.value, []);
  });

  const errors: { name: string; cloneList: JsonObject; message: RegExp; path: string }[] = [
    {
      name: "empty kinds",
      cloneList: { namespace: "default", kinds: [] },
      message: /cloneList\.kinds is empty/,
      path: "generate.cloneList.kinds",
    },
    {
      name: "a kind entry with no kind",
      cloneList: { namespace: "default", kinds: ["v1/"] },
      message: /names no kind/,
      path: "generate.cloneList.kinds[0]",
    },
    {
      name: "a selector Kubernetes refuses",
      cloneList: {
        namespace: "default",
        kinds: ["v1/Secret"],
        selector: { matchExpressions: [{ key: "a", operator: "Near" }] },
      },
      message: /invalid cloneList selector: "Near" is not a valid label selector operator/,
      path: "generate.cloneList.selector",
    },
    {
      name: "a non-string label value",
      cloneList: { namespace: "default", kinds: ["v1/Secret"], selector: { matchLabels: { a: 1 } } },
      message: /must be a string/,
      path: "generate.cloneList.selector.matchLabels.a",
    },
  ];
  for (const c of errors) {
    test(`error: ${c.name}`, () => {
      const { r } = run(c.cloneList);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.match(r.error.message, c.message);
      assert.equal(r.error.path, c.path);
    });
  }

  test("a failing list is reported", () => {
    const r = generateResources(
      input(
        { namespace: "t", cloneList: { namespace: "default", kinds: ["v1/Secret"] } },
        { existing: memoryExisting([], "forbidden") },
      ),
    );
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /cannot list Secret in namespace "default": forbidden/);
  });
});

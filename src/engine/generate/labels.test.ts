import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { generateResources } from "./generate-resources.js";
import { generateLabels, truncateLabelValue } from "./labels.js";
import { input, memoryExisting, secret } from "../../../test/support/generate-inputs.js";

const P = "generate.kyverno.io/";

describe("labels on generated objects", () => {
  test("ClusterPolicy, core trigger: empty policy namespace and trigger group", () => {
    const labels = generateLabels(input({}));
    assert.deepEqual(labels, {
      "app.kubernetes.io/managed-by": "kyverno",
      [`${P}policy-name`]: "add-quota",
      [`${P}policy-namespace`]: "",
      [`${P}rule-name`]: "generate-resourcequota",
      [`${P}trigger-group`]: "",
      [`${P}trigger-version`]: "v1",
      [`${P}trigger-kind`]: "Namespace",
      [`${P}trigger-namespace`]: "",
      [`${P}trigger-uid`]: "ns-uid-1",
    });
  });

  test("namespaced Policy, grouped trigger", () => {
    const labels = generateLabels(
      input(
        {},
        {
          policy: { kind: "Policy", name: "p", namespace: "team" },
          rule: "r",
          trigger: {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "web", namespace: "team", uid: "d-1" },
          },
        },
      ),
    );
    assert.equal(labels[`${P}policy-namespace`], "team");
    assert.equal(labels[`${P}trigger-group`], "apps");
    assert.equal(labels[`${P}trigger-version`], "v1");
    assert.equal(labels[`${P}trigger-kind`], "Deployment");
    assert.equal(labels[`${P}trigger-namespace`], "team");
    assert.equal(labels[`${P}trigger-uid`], "d-1");
    assert.equal(labels[`${P}clone-source`], undefined);
  });

  test("a ClusterPolicy never reports a policy namespace", () => {
    const labels = generateLabels(input({}, { policy: { kind: "ClusterPolicy", name: "p", namespace: "stray" } }));
    assert.equal(labels[`${P}policy-namespace`], "");
  });

  test("a trigger without uid gets an empty trigger-uid", () => {
    const labels = generateLabels(
      input({}, { trigger: { apiVersion: "v1", kind: "Namespace", metadata: { name: "n" } } }),
    );
    assert.equal(labels[`${P}trigger-uid`], "");
  });

  test("clones carry clone-source and the source's identity", () => {
    const r = generateResources(
      input(
        {
          apiVersion: "v1",
          kind: "Secret",
          name: "regcred",
          namespace: "hello-world-namespace",
          clone: { namespace: "default", name: "regcred" },
        },
        { existing: memoryExisting([secret("default", "regcred")]) },
      ),
    );
    assert.ok(r.ok);
    const labels = r.value[0]?.labels ?? {};
    assert.equal(labels[`${P}clone-source`], "");
    assert.equal(labels[`${P}source-group`], "");
    assert.equal(labels[`${P}source-version`], "v1");
    assert.equal(labels[`${P}source-kind`], "Secret");
    assert.equal(labels[`${P}source-namespace`], "default");
    assert.equal(labels[`${P}source-uid`], "default-regcred-uid");
  });

  test("a source without uid gets no source-uid label", () => {
    const labels = generateLabels(input({}), { apiVersion: "apps/v1", kind: "Deployment", namespace: "d", uid: "" });
    assert.equal(labels[`${P}source-group`], "apps");
    assert.equal(Object.hasOwn(labels, `${P}source-uid`), false);
  });

  test("values longer than 63 characters are cut to 63", () => {
    const long = "p".repeat(80);
    assert.equal(truncateLabelValue(long), "p".repeat(63));
    assert.equal(truncateLabelValue("short"), "short");
    const labels = generateLabels(input({}, { policy: { kind: "ClusterPolicy", name: long, namespace: "" } }));
    assert.equal(labels[`${P}policy-name`], "p".repeat(63));
  });

  test("resource has none of Kyverno's labels; toApply merges them with the object's own", () => {
    const r = generateResources(
      input({
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "c",
        namespace: "n",
        data: { metadata: { labels: { somekey: "somevalue", [`${P}rule-name`]: "mine" } } },
      }),
    );
    assert.ok(r.ok);
    const g = r.value[0];
    assert.ok(g);
    assert.deepEqual(g.resource["metadata"], {
      name: "c",
      namespace: "n",
      labels: { somekey: "somevalue", [`${P}rule-name`]: "mine" },
    });
    const applied = (g.toApply["metadata"] as { labels: Record<string, string> }).labels;
    assert.equal(applied["somekey"], "somevalue");
    assert.equal(applied[`${P}rule-name`], "generate-resourcequota");
    assert.equal(applied["app.kubernetes.io/managed-by"], "kyverno");
    assert.deepEqual(applied, { somekey: "somevalue", ...g.labels });
  });

  test("an existing managed-by naming another manager is kept", () => {
    const r = generateResources(
      input({
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "c",
        namespace: "n",
        data: { metadata: { labels: { "app.kubernetes.io/managed-by": "helm" } } },
      }),
    );
    assert.ok(r.ok);
    const g = r.value[0];
    assert.ok(g);
    assert.equal(
      (g.toApply["metadata"] as { labels: Record<string, string> }).labels["app.kubernetes.io/managed-by"],
      "helm",
    );
    assert.equal(Object.hasOwn(g.labels, "app.kubernetes.io/managed-by"), false);
  });
});

/**
 * The policy webhook refuses a namespaced Policy that visibly reaches outside its namespace
 * (tenant-isolation.md rules 1-3), naming the field; the same shapes in a ClusterPolicy, and a
 * Policy that stays in its namespace, are allowed.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { handlePolicyValidate } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const check = { message: "m", pattern: { metadata: { labels: { app: "?*" } } } };
const match = { any: [{ resources: { kinds: ["ConfigMap"] } }] };
const tenantPolicy = (rule: JsonObject, namespace = "tenant-a"): JsonObject => ({
  apiVersion: "kyverno.io/v1",
  kind: "Policy",
  metadata: { name: "hostile", namespace },
  spec: { rules: [{ name: "r", match, ...rule }] },
});
const gen = (g: JsonObject): JsonObject => ({
  generate: { apiVersion: "v1", kind: "ConfigMap", name: "copy", namespace: "tenant-a", synchronize: false, ...g },
});

function answer(doc: JsonObject) {
  const fake = fakeDeps();
  const namespace = ((doc["metadata"] as JsonObject | undefined)?.["namespace"] as string | undefined) ?? "";
  const r = handlePolicyValidate(
    reviewOf(doc, {
      resource: {
        group: "kyverno.io",
        version: "v1",
        resource: doc["kind"] === "Policy" ? "policies" : "clusterpolicies",
      },
      namespace,
    }),
    fake.deps,
  );
  assert.equal(r.status, 200);
  if (r.status !== 200) throw new Error("unreachable");
  return r.body.response;
}

const HOSTILE: { name: string; rule: JsonObject; field: RegExp }[] = [
  {
    name: "apiCall reading another namespace",
    rule: {
      context: [{ name: "c", apiCall: { urlPath: "/api/v1/namespaces/tenant-b/secrets/canary" } }],
      validate: check,
    },
    field: /spec\.rules\[0\]\.context\[0\]\.apiCall\.urlPath: .*tenant-b/,
  },
  {
    name: "apiCall with a dot-segment",
    rule: {
      context: [{ name: "c", apiCall: { urlPath: "/api/v1/namespaces/tenant-a/../kube-system/secrets" } }],
      validate: check,
    },
    field: /context\[0\]\.apiCall\.urlPath: /,
  },
  {
    name: "apiCall percent-encoded",
    rule: {
      context: [{ name: "c", apiCall: { urlPath: "/api/v1/namespaces/tenant-a/configmaps/%2e%2e" } }],
      validate: check,
    },
    field: /context\[0\]\.apiCall\.urlPath: .*not allowed/,
  },
  {
    name: "apiCall on a cluster-scoped path",
    rule: {
      context: [
        { name: "c", apiCall: { urlPath: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations" } },
      ],
      validate: check,
    },
    field: /context\[0\]\.apiCall\.urlPath: /,
  },
  {
    name: "apiCall service to the metadata address",
    rule: { context: [{ name: "c", apiCall: { service: { url: "http://169.254.169.254/latest" } } }], validate: check },
    field: /context\[0\]\.apiCall: .*service/,
  },
  {
    name: "configMap in kube-system",
    rule: { context: [{ name: "c", configMap: { name: "canary", namespace: "kube-system" } }], validate: check },
    field: /context\[0\]\.configMap\.namespace: .*kube-system/,
  },
  {
    name: "globalReference",
    rule: { context: [{ name: "c", globalReference: { name: "all" } }], validate: check },
    field: /context\[0\]\.globalReference: /,
  },
  {
    name: "generate into another namespace",
    rule: gen({ namespace: "tenant-b", data: { data: { a: "b" } } }),
    field: /spec\.rules\[0\]\.generate\.namespace: .*"tenant-b"/,
  },
  {
    name: "generate a cluster-scoped kind",
    rule: gen({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      namespace: "",
      data: { roleRef: {} },
    }),
    field: /generate\.kind: .*cluster-scoped kind ClusterRoleBinding/,
  },
  {
    name: "clone from another namespace",
    rule: gen({ clone: { namespace: "tenant-b", name: "canary" } }),
    field: /generate\.clone\.namespace: .*clone source names namespace "tenant-b"/,
  },
  {
    name: "cloneList from kube-system",
    rule: {
      generate: {
        namespace: "tenant-a",
        synchronize: false,
        cloneList: { namespace: "kube-system", kinds: ["v1/Secret"] },
      },
    },
    field: /generate\.cloneList\.namespace: .*kube-system/,
  },
  {
    name: "cloneList of a cluster-scoped kind",
    rule: {
      generate: {
        namespace: "tenant-a",
        synchronize: false,
        cloneList: { namespace: "tenant-a", kinds: ["rbac.authorization.k8s.io/v1/ClusterRole"] },
      },
    },
    field: /generate\.cloneList\.kinds\[0\]: .*ClusterRole/,
  },
  {
    name: "generate.foreach into another namespace",
    rule: {
      generate: {
        foreach: [
          {
            list: "request.object.data",
            apiVersion: "v1",
            kind: "ConfigMap",
            name: "x",
            namespace: "tenant-b",
            data: {},
          },
        ],
      },
    },
    field: /generate\.foreach\[0\]\.namespace: .*tenant-b/,
  },
  {
    name: "mutate target in another namespace",
    rule: {
      mutate: {
        targets: [{ apiVersion: "v1", kind: "ConfigMap", name: "canary", namespace: "tenant-b" }],
        patchStrategicMerge: { metadata: { labels: { x: "y" } } },
      },
    },
    field: /mutate\.targets\[0\]\.namespace: .*tenant-b/,
  },
  {
    name: "mutate target of a cluster-scoped kind",
    rule: {
      mutate: {
        targets: [{ apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration", name: "x" }],
        patchStrategicMerge: { metadata: { labels: { x: "y" } } },
      },
    },
    field: /mutate\.targets\[0\]\.kind: .*ValidatingWebhookConfiguration/,
  },
];

describe("policyvalidate: tenant rules for a namespaced Policy", () => {
  for (const h of HOSTILE) {
    test(`refused: ${h.name}`, () => {
      const response = answer(tenantPolicy(h.rule));
      assert.equal(response.allowed, false, `allowed: ${JSON.stringify(response)}`);
      assert.match(response.status?.message ?? "", h.field);
    });
  }

  test("the same shapes in a ClusterPolicy are not tenant input", () => {
    const doc = { ...tenantPolicy(HOSTILE[0]?.rule ?? {}), kind: "ClusterPolicy", metadata: { name: "c" } };
    assert.equal(answer(doc).allowed, true);
  });

  test("a Policy that stays in its namespace is allowed; a generate namespace from a variable is refused, as Kyverno refuses it", () => {
    const own = answer(
      tenantPolicy({
        context: [
          { name: "c", apiCall: { urlPath: "/api/v1/namespaces/tenant-a/pods", jmesPath: "items | length(@)" } },
          { name: "d", configMap: { name: "x", namespace: "{{request.namespace}}" } },
        ],
        validate: check,
      }),
    );
    assert.equal(own.allowed, true, JSON.stringify(own));
    const generateOwn = answer(tenantPolicy(gen({ clone: { namespace: "tenant-a", name: "source" } })));
    assert.equal(generateOwn.allowed, true, JSON.stringify(generateOwn));
    const fromVariable = answer(
      tenantPolicy(gen({ namespace: "{{request.object.metadata.namespace}}", data: { data: {} } })),
    );
    // Kyverno compares a namespaced Policy's generate namespace as written (Generation.Validate).
    assert.equal(fromVariable.allowed, false, JSON.stringify(fromVariable));
    assert.match(
      fromVariable.status?.message ?? "",
      /a namespaced policy cannot generate resources in other namespaces, expected: tenant-a, received: \{\{request\.object\.metadata\.namespace\}\}/,
    );
  });
});

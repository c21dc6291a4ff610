/** A deleted GeneratingPolicy takes its downstream with it, found by Kyverno's labels and by nothing that another policy's objects carry. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject } from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { CORE_DISCOVERY, fakeKubeClient } from "../../../test/support/fake-kube-client.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { KindPaths } from "./kind-paths.js";
import { deleteDownstreamOf } from "./policy-deleted.js";

const API: Record<string, unknown> = {
  ...CORE_DISCOVERY,
  "/api/v1/namespaces": { items: [{ metadata: { name: "tenant-a", uid: "ns-a" } }] },
};

function policy(): CompiledPolicy {
  const c = createEngine(fakePorts()).compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: "defaults" },
    spec: {
      evaluation: { synchronize: { enabled: true } },
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
      },
      generate: [
        {
          expression:
            'generator.Apply(object.metadata.name, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"), "metadata": dyn({"name": "defaults"})}])',
        },
      ],
    },
  });
  assert.ok(c.ok, JSON.stringify(c));
  return c.policy;
}

const configMap = (name: string, labels: Record<string, string>): JsonObject => ({
  metadata: { name, namespace: "tenant-a", labels: { "generate.kyverno.io/policy-name": "defaults", ...labels } },
});

test("deleting a synchronized GeneratingPolicy deletes its downstream (Kyverno's labels, or Bylaw's earlier ones), not a same-named policy's", async () => {
  const calls: string[] = [];
  const listed = [
    configMap("kyverno-labels", { "generate.kyverno.io/trigger-name": "tenant-a" }),
    configMap("earlier-labels", { "generate.kyverno.io/policy-namespace": "", "generate.kyverno.io/rule-name": "" }),
    // A tenant's NamespacedGeneratingPolicy named the same, and a ClusterPolicy's rule named the same.
    configMap("tenants", { "generate.kyverno.io/policy-namespace": "tenant-a" }),
    configMap("classic", { "generate.kyverno.io/policy-namespace": "", "generate.kyverno.io/rule-name": "copy" }),
  ];
  const base = fakeKubeClient(API, calls);
  const client = {
    ...base,
    getJson: (path: string) =>
      path.startsWith("/api/v1/configmaps?labelSelector=")
        ? (calls.push(`GET ${path}`), Promise.resolve({ items: listed }))
        : base.getJson(path),
  } as unknown as KubeClient;
  const deleted = await deleteDownstreamOf(policy(), { client, paths: new KindPaths(client) });
  assert.equal(deleted, 2);
  assert.deepEqual(
    calls.filter((c) => c.startsWith("DELETE")),
    [
      "DELETE /api/v1/namespaces/tenant-a/configmaps/kyverno-labels",
      "DELETE /api/v1/namespaces/tenant-a/configmaps/earlier-labels",
    ],
  );
});

/**
 * CEL resource.Get/List from the live caches (resource-read.ts) without an API server: the checks
 * on each part and the tenant rule answer before any cache; a cache that cannot list (a closed
 * loopback port) is an error, never an empty answer. Live data is covered by the cluster test
 * (test/cluster/validating-policy.cluster-test.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { KubeClient } from "./kube-client.js";
import { LiveCluster } from "./live-cluster.js";
import { celResourcesRead, getResource, listResources } from "./resource-read.js";

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === "object" && address !== null ? address.port : 0;
}

test("resource.Get/List: malformed parts and a tenant reaching outside its namespace are refused; an unsynced cache is an error", async () => {
  const client = new KubeClient({ connection: { server: `https://127.0.0.1:${await closedPort()}`, origin: "test" } });
  const cluster = new LiveCluster({
    client,
    budgetBytes: 1 << 20,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
  });
  const tenant = { policyNamespace: "team-a" };
  const get = (apiVersion: string, resource: string, namespace: string, name: string, caller = tenant) =>
    getResource(cluster, { apiVersion, resource, namespace, name }, caller);
  try {
    for (const [r, why] of [
      [get("v1", "configmaps", "team-a", "../../secrets/x"), /name .* is not an object name/],
      [get("v1", "configmaps", "team-a", "a%2Fb"), /name .* is not an object name/],
      [get("v1", "pods/log", "team-a", "p"), /not a plural resource name/],
      [get("v1/../..", "configmaps", "team-a", "c"), /not a group\/version/],
      [get("v1", "configmaps", "team-b", "c"), /may not read namespace "team-b"/],
      [get("v1", "namespaces", "", "team-b"), /may only read paths in its own namespace/],
      [
        listResources(cluster, { apiVersion: "v1", resource: "secrets", namespace: "" }, tenant),
        /may only read paths in its own namespace/,
      ],
    ] as const) {
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.error.kind, "refused", r.error.message);
        assert.match(r.error.message, why);
      }
    }
    const cm = get("v1", "configmaps", "team-a", "settings");
    assert.equal(cm.ok, false);
    if (!cm.ok) {
      assert.equal(cm.error.kind, "not-ready");
      assert.match(
        cm.error.message,
        /^resource\.Get\("v1", "configmaps", "team-a", "settings"\): the configmaps\.v1 cache has not synced yet/,
      );
    }
    // A cluster-wide policy may read another namespace and cluster-scoped objects (the cache is still syncing here).
    const cluster1 = getResource(
      cluster,
      { apiVersion: "apps/v1", resource: "deployments", namespace: "x", name: "d" },
      { policyNamespace: "" },
    );
    assert.ok(!cluster1.ok && cluster1.error.kind === "not-ready", JSON.stringify(cluster1));
  } finally {
    cluster.close();
    client.close();
  }
});

test("the resources CEL expressions name literally in resource.Get/List are found at load", () => {
  const spec = {
    validations: [
      { expression: `resource.Get("v1", "configmaps", "default", "x").data.a == "b"` },
      { expression: "size(resource.list('apps/v1', 'deployments', object.metadata.namespace).items) < 3" },
      { expression: "resource.Get(variables.v, 'pods', 'a', 'b') != null" },
    ],
    variables: [{ name: "n", expression: `resource.List("v1", "pods/log", "")` }],
  };
  assert.deepEqual(
    celResourcesRead([spec]).map((g) => `${g.group}/${g.version}/${g.resource}`),
    ["/v1/configmaps", "apps/v1/deployments"],
  );
});

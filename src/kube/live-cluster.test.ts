/**
 * LiveCluster's bookkeeping without an API server: the client points at a closed loopback port, so
 * every list fails (and waits on a sleep that never ends); what is checked is which caches start.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { KubeClient } from "./kube-client.js";
import { CONFIGMAPS, LiveCluster, NAMESPACES } from "./live-cluster.js";

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === "object" && address !== null ? address.port : 0;
}

test("apiCall paths may start at most maxApiCallCaches resource types; built-in caches do not count; until synced it is not ready", async () => {
  const client = new KubeClient({ connection: { server: `https://127.0.0.1:${await closedPort()}`, origin: "test" } });
  const cluster = new LiveCluster({
    client,
    budgetBytes: 1 << 20,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
    maxApiCallCaches: 2,
  });
  try {
    const gvr = (resource: string) => ({ group: "", version: "v1", resource });
    assert.equal(cluster.cacheFor(gvr("pods")).ok, true);
    assert.equal(cluster.cacheFor(gvr("services")).ok, true);
    assert.equal(cluster.cacheFor(gvr("pods")).ok, true, "an existing cache is no new type");
    const third = cluster.cacheFor(gvr("secrets"));
    assert.equal(third.ok, false);
    if (!third.ok)
      assert.match(
        third.reason,
        /already watches 2 resource types for apiCall entries, its limit; secrets\.v1 is not watched/,
      );
    assert.equal(cluster.cacheFor(CONFIGMAPS).ok, true, "ConfigMaps are built in");
    assert.equal(cluster.cacheFor(NAMESPACES).ok, true);
    const ready = cluster.readiness();
    assert.equal(ready.ok, false);
    assert.match(ready.reason ?? "", /live context caches not synced yet: .*namespaces\.v1/);
    assert.equal(
      cluster.namespaceLabels("default"),
      undefined,
      "no labels from a cache that has not synced: unknown, never empty",
    );
  } finally {
    cluster.close();
    client.close();
  }
});

test("an apiCall cache whose list fails keeps the server ready (named); a built-in one that fails does not", async () => {
  const client = new KubeClient({ connection: { server: `https://127.0.0.1:${await closedPort()}`, origin: "test" } });
  const cluster = new LiveCluster({
    client,
    budgetBytes: 1 << 20,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
  });
  try {
    const secrets = cluster.cacheFor({ group: "", version: "v1", resource: "secrets" });
    assert.ok(secrets.ok);
    const deadline = Date.now() + 10_000;
    while (
      (secrets.informer.lastFailure === undefined || cluster.informer(NAMESPACES).lastFailure === undefined) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(secrets.informer.lastFailure !== undefined, "the secrets list failed");
    const ready = cluster.readiness();
    assert.equal(ready.ok, false, "the Namespace cache (built in) has not synced");
    const [waiting, failing] = (ready.reason ?? "").split("; caches whose rules are errors: ");
    assert.match(waiting ?? "", /not synced yet: the namespaces\.v1 cache has not synced yet/);
    assert.doesNotMatch(waiting ?? "", /secrets/, "a failing apiCall cache does not hold readiness");
    assert.match(failing ?? "", /the secrets\.v1 cache has not synced yet \(/, "it is named with its failure");
  } finally {
    cluster.close();
    client.close();
  }
});

test("the live port: a namespaced Policy gets no globalReference and no service call; calls outside a review are errors, never answers", async () => {
  const { liveContextSources } = await import("./live-context.js");
  const { CallScopes } = await import("./review-calls.js");
  const { EgressPolicy } = await import("./egress/egress-policy.js");
  const client = new KubeClient({ connection: { server: `https://127.0.0.1:${await closedPort()}`, origin: "test" } });
  const cluster = new LiveCluster({
    client,
    budgetBytes: 1 << 20,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
  });
  try {
    const policy = EgressPolicy.create();
    assert.ok(policy.ok);
    const scopes = new CallScopes();
    let posted = 0;
    const ctx = liveContextSources(cluster, {
      calls: { scopes, post: async () => (posted++, {}), egress: { policy: policy.value } },
      globals: { read: () => ({ ok: true, value: "global data" }) },
    });
    const tenant = { policyNamespace: "tenant-a" };
    const g = ctx.globalReference("entry", tenant);
    assert.equal(g.ok ? "" : g.error.kind, "refused");
    assert.deepEqual(ctx.globalReference("entry", { policyNamespace: "" }), { ok: true, value: "global data" });
    const svc = ctx.apiCall({ method: "GET", serviceUrl: "http://10.0.0.1/x" }, tenant);
    assert.equal(svc.ok ? "" : svc.error.kind, "refused");
    const post = ctx.apiCall(
      { method: "POST", urlPath: "/apis/authorization.k8s.io/v1/subjectaccessreviews" },
      { policyNamespace: "" },
    );
    assert.equal(
      post.ok ? "" : post.error.kind,
      "unsupported",
      "outside a review there is no record to make the call in",
    );
    const record = scopes.begin();
    const pending = record.within(() =>
      ctx.apiCall(
        { method: "POST", urlPath: "/apis/authorization.k8s.io/v1/subjectaccessreviews" },
        { policyNamespace: "" },
      ),
    );
    assert.equal(pending.ok ? "" : pending.error.kind, "pending");
    await record.settle(1000);
    assert.equal(posted, 1);
    assert.deepEqual(
      record.within(() =>
        ctx.apiCall(
          { method: "POST", urlPath: "/apis/authorization.k8s.io/v1/subjectaccessreviews" },
          { policyNamespace: "" },
        ),
      ),
      { ok: true, value: {} },
    );
    assert.equal(posted, 1, "made once per review");
  } finally {
    cluster.close();
    client.close();
  }
});

test("a configMap entry whose cache cannot list is an error naming the list's failure once", async () => {
  const { liveContextSources } = await import("./live-context.js");
  const client = new KubeClient({ connection: { server: `https://127.0.0.1:${await closedPort()}`, origin: "test" } });
  const cluster = new LiveCluster({
    client,
    budgetBytes: 1 << 20,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
  });
  try {
    const inf = cluster.informer(CONFIGMAPS);
    const deadline = Date.now() + 5000;
    const failed = (): boolean => {
      const h = inf.health();
      return !h.ok && h.reason.includes("(");
    };
    while (!failed()) {
      assert.ok(Date.now() < deadline, "the list against a closed port failed");
      await new Promise((r) => setTimeout(r, 10));
    }
    const r = liveContextSources(cluster).configMap("registry-config", "allowed", undefined);
    assert.equal(r.ok, false);
    const message = r.ok ? "" : r.error.message;
    assert.match(
      message,
      /^failed to get configmap registry-config\/allowed: the configmaps\.v1 cache has not synced yet \(.+\); Bylaw reads it from a watch/,
    );
    assert.equal(message.split("has not synced yet").length, 2, message);
  } finally {
    cluster.close();
    client.close();
  }
});

test("watched types: a namespace starts at most its share, namespaces together at most half; cluster-wide policies are served first", async () => {
  const client = new KubeClient({ connection: { server: `https://127.0.0.1:${await closedPort()}`, origin: "test" } });
  const cluster = new LiveCluster({
    client,
    budgetBytes: 1 << 20,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
    maxApiCallCaches: 8,
    maxApiCallCachesPerNamespace: 2,
  });
  try {
    const gvr = (resource: string) => ({ group: "example.com", version: "v1", resource });
    assert.equal(cluster.cacheFor(gvr("a1"), "tenant-a").ok, true);
    assert.equal(cluster.cacheFor(gvr("a2"), "tenant-a").ok, true);
    const a3 = cluster.cacheFor(gvr("a3"), "tenant-a");
    assert.equal(a3.ok, false);
    assert.match(a3.ok ? "" : a3.reason, /the policies of namespace tenant-a already had Bylaw watch 2 resource types/);
    assert.equal(cluster.cacheFor(gvr("b1"), "tenant-b").ok, true);
    assert.equal(cluster.cacheFor(gvr("b2"), "tenant-b").ok, true);
    const c1 = cluster.cacheFor(gvr("c1"), "tenant-c");
    assert.equal(c1.ok, false, "namespaced policies together stop at half");
    assert.match(
      c1.ok ? "" : c1.reason,
      /namespaced policies already had Bylaw watch 4 resource types .*the other 4 are kept for cluster-wide policies/,
    );
    for (const r of ["x1", "x2", "x3", "x4"]) assert.equal(cluster.cacheFor(gvr(r)).ok, true, `cluster-wide ${r}`);
    assert.equal(cluster.cacheFor(gvr("a1"), "tenant-a").ok, true, "a type already watched is no new type");
    // A cluster policy reading a type a tenant started takes it over: the tenant's slot is free again.
    assert.equal(cluster.cacheFor(gvr("a1")).ok, true);
    // Policies are prepared cluster-wide first, whatever their order.
    const fresh = new LiveCluster({
      client,
      budgetBytes: 1 << 20,
      random: { next: () => 0.5 },
      sleep: () => new Promise(() => {}),
      maxApiCallCaches: 2,
    });
    const call = (path: string) => ({ spec: { rules: [{ context: [{ name: "x", apiCall: { urlPath: path } }] }] } });
    fresh.prepare([
      { document: call("/apis/example.com/v1/namespaces/tenant-a/t1"), namespace: "tenant-a" },
      { document: call("/apis/example.com/v1/c1"), namespace: "" },
      { document: call("/apis/example.com/v1/c2"), namespace: "" },
    ]);
    assert.equal(fresh.cacheFor(gvr("c2")).ok, true);
    assert.equal(
      fresh.cacheFor(gvr("t1"), "tenant-a").ok,
      false,
      "the tenant's type was not started before the cluster's",
    );
    fresh.close();
  } finally {
    cluster.close();
    client.close();
  }
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ClusterReads, describeKubeError } from "./cluster-reads.js";
import { KubeError } from "./kube-client.js";

/** Answers GETs from a table of paths; records each path asked. A path not in the table is the server's 404. */
function getter(table: Record<string, unknown>) {
  const asked: string[] = [];
  return {
    asked,
    getJson: (path: string): Promise<unknown> => {
      asked.push(path);
      return path in table
        ? Promise.resolve(table[path])
        : Promise.reject(new KubeError(`the server could not find the requested resource (${path})`, 404, "NotFound"));
    },
  };
}

const CM = "/api/v1/namespaces/default/configmaps/teams";

describe("ClusterReads (bylaw apply --cluster context entries)", () => {
  test("a configMap read is pending until settled, then {data, metadata}, read once for the whole run", async () => {
    const g = getter({
      [CM]: { kind: "ConfigMap", metadata: { name: "teams", namespace: "default" }, data: { allowed: "a" } },
    });
    const reads = new ClusterReads(g);
    const port = reads.sources();
    const first = port.configMap("", "teams", { policyNamespace: "" });
    assert.ok(!first.ok && first.error.kind === "pending", JSON.stringify(first));
    assert.equal(reads.pending, 1);
    await reads.settle();
    assert.equal(reads.pending, 0);
    assert.deepEqual(port.configMap("", "teams", { policyNamespace: "" }), {
      ok: true,
      value: { data: { allowed: "a" }, metadata: { name: "teams", namespace: "default" } },
    });
    assert.deepEqual(port.configMap("default", "teams"), {
      ok: true,
      value: { data: { allowed: "a" }, metadata: { name: "teams", namespace: "default" } },
    });
    assert.deepEqual(g.asked, [CM]);
  });

  test("a missing object is a context error with the server's text (an apiCall default may replace it)", async () => {
    const reads = new ClusterReads(getter({}));
    const port = reads.sources();
    port.apiCall({ urlPath: "/api/v1/namespaces/x/pods", method: "GET" });
    await reads.settle();
    const r = port.apiCall({ urlPath: "/api/v1/namespaces/x/pods", method: "GET" });
    assert.ok(!r.ok);
    assert.equal(r.error.kind, "context");
    assert.match(
      r.error.message,
      /^failed to GET resource with raw url: \/api\/v1\/namespaces\/x\/pods: the server could not find/,
    );
  });

  test("POST and service calls are refused (read-only), and a namespaced Policy keeps to its namespace", () => {
    const reads = new ClusterReads(getter({}));
    const port = reads.sources();
    const post = port.apiCall({
      urlPath: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      method: "POST",
      data: [],
    });
    assert.ok(
      !post.ok && post.error.kind === "unsupported" && /read-only and makes no apiCall POST/.test(post.error.message),
    );
    const service = port.apiCall({ serviceUrl: "https://example.test/x", method: "GET" });
    assert.ok(
      !service.ok && service.error.kind === "unsupported" && /does not call services/.test(service.error.message),
    );
    const cross = port.configMap("other", "teams", { policyNamespace: "mine" });
    assert.ok(!cross.ok && cross.error.kind === "refused");
    assert.equal(reads.pending, 0);
    assert.equal(port.canLoad("globalReference"), false);
    assert.equal(port.canLoad("imageRegistry"), false);
    assert.equal(port.canLoad("configMap"), true);
  });

  test("CEL resource.Get/List read the object and the list, with a label selector", async () => {
    const g = getter({
      "/apis/apps/v1/namespaces/shop/deployments/web": { kind: "Deployment" },
      "/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb": { items: [] },
    });
    const reads = new ClusterReads(g);
    const port = reads.sources();
    port.getResource?.({ apiVersion: "apps/v1", resource: "deployments", namespace: "shop", name: "web" });
    port.listResources?.({ apiVersion: "v1", resource: "pods", namespace: "shop", labels: { app: "web" } });
    await reads.settle();
    assert.deepEqual(
      port.getResource?.({ apiVersion: "apps/v1", resource: "deployments", namespace: "shop", name: "web" }),
      { ok: true, value: { kind: "Deployment" } },
    );
    assert.deepEqual(
      port.listResources?.({ apiVersion: "v1", resource: "pods", namespace: "shop", labels: { app: "web" } }),
      { ok: true, value: { items: [] } },
    );
  });

  test("in the final round a read not made yet is an error, not pending", () => {
    const reads = new ClusterReads(getter({}));
    reads.finalRound(true);
    const r = reads.sources().configMap("default", "late");
    assert.ok(!r.ok && r.error.kind === "context" && /not read: .*more rounds/.test(r.error.message));
    assert.equal(reads.pending, 0);
  });

  test("client errors say what a 401, a 403 and no answer mean", () => {
    assert.match(
      describeKubeError(new KubeError("Unauthorized", 401)),
      /^unauthorized \(401\): the API server did not accept the kubeconfig's credentials/,
    );
    assert.match(
      describeKubeError(new KubeError('pods is forbidden: User "u" cannot list resource "pods"', 403)),
      /^forbidden \(403\): pods is forbidden/,
    );
    assert.match(
      describeKubeError(new KubeError("GET /api/v1: connect ECONNREFUSED 127.0.0.1:1", 0)),
      /^no answer from the API server: GET \/api\/v1: connect ECONNREFUSED/,
    );
  });
});

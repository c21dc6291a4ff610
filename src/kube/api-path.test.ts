import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { checkApiCall, checkConfigMapNamespace, parseApiPath } from "./api-path.js";

const get = (urlPath: string) => ({ urlPath, method: "GET" });

describe("apiCall paths of a namespaced Policy (tenant-a)", () => {
  const hostile: readonly [string, RegExp][] = [
    ["/api/v1/namespaces/tenant-b/configmaps/canary", /may not read namespace "tenant-b"/],
    ["/api/v1/namespaces/kube-system/secrets", /may not read namespace "kube-system"/],
    ["/api/v1/namespaces/tenant-a/../tenant-b/configmaps/canary", /dot-segments/],
    ["/api/v1/namespaces/tenant-a/configmaps/../../tenant-b/configmaps/canary", /dot-segments/],
    ["/api/v1/namespaces/tenant-a/./configmaps", /dot-segments/],
    ["/api/v1/namespaces/tenant-a/%2e%2e/tenant-b/configmaps", /%2E is not allowed/],
    ["/api/v1/namespaces/tenant-a%2F..%2Ftenant-b/configmaps", /%2F is not allowed/],
    ["/api/v1/namespaces/tenant-a/%252e%252e/tenant-b", /%25 is not allowed/],
    ["/api/v1/namespaces/tenant-a/configmaps/%zz", /malformed percent-escape/],
    ["/api/v1/namespaces/tenant-a/configmaps/%2", /malformed percent-escape/],
    ["/api/v1/namespaces/tenant-a/configmaps?x=/api/v1/namespaces/tenant-b", /query strings/],
    ["/api/v1/namespaces/tenant-b/configmaps#/api/v1/namespaces/tenant-a", /fragments/],
    ["/api/v1/namespaces/tenant-a/configmaps%3Fa", /%3F is not allowed/],
    ["/api/v1/namespaces/tenant-a/configmaps%23a", /%23 is not allowed/],
    ["/api/v1/namespaces/tenant-a//configmaps", /empty segment/],
    ["//api/v1/namespaces/tenant-a/configmaps", /empty segment/],
    ["/api/v1/namespaces/tenant-a\\..\\tenant-b", /backslashes/],
    ["/api/v1/namespaces/tenant-a/configmaps/a b", /spaces/],
    ["/api/v1/namespaces/tenant-a/configmaps/%00", /%00 is not allowed/],
    ["api/v1/namespaces/tenant-a/configmaps", /must start with \//],
    ["", /1 to 2048/],
    ["/api/v1/secrets", /not namespaced/],
    ["/api/v1/namespaces", /not namespaced/],
    ["/api/v1/namespaces/tenant-a", /not namespaced/],
    ["/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", /not namespaced/],
    ["/apis/x/namespaces/tenant-b/namespaces/tenant-a/configmaps", /not namespaced/],
    ["/version", /not namespaced/],
  ];
  for (const [path, why] of hostile) {
    test(`refuses ${JSON.stringify(path)}`, () => {
      const r = checkApiCall(get(path), "tenant-a");
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.error.message, why);
    });
  }

  test("allows its own namespace and sends exactly the checked path", () => {
    const r = checkApiCall(get("/api/v1/namespaces/tenant-a/pods"), "tenant-a");
    assert.ok(r.ok);
    assert.equal(r.value.path, "/api/v1/namespaces/tenant-a/pods");
    assert.deepEqual(r.value.resource, { group: "", version: "v1", resource: "pods", namespace: "tenant-a" });
    const g = checkApiCall(get("/apis/apps/v1/namespaces/tenant-a/deployments/web/"), "tenant-a");
    assert.ok(g.ok);
    assert.equal(g.value.path, "/apis/apps/v1/namespaces/tenant-a/deployments/web");
    assert.deepEqual(g.value.resource, {
      group: "apps",
      version: "v1",
      resource: "deployments",
      namespace: "tenant-a",
      name: "web",
    });
  });

  test("an encoded ordinary character is decoded once and the decoded namespace is the one checked", () => {
    const r = checkApiCall(get("/api/v1/namespaces/%74enant-a/configmaps/x"), "tenant-a");
    assert.ok(r.ok);
    assert.equal(r.value.path, "/api/v1/namespaces/tenant-a/configmaps/x");
    const b = checkApiCall(get("/api/v1/namespaces/%74enant-b/configmaps/x"), "tenant-a");
    assert.equal(b.ok, false);
  });

  test("GET only, no service calls", () => {
    const post = checkApiCall({ urlPath: "/api/v1/namespaces/tenant-a/pods", method: "POST" }, "tenant-a");
    assert.equal(post.ok, false);
    if (!post.ok) assert.match(post.error.message, /may only GET/);
    const svc = checkApiCall({ serviceUrl: "http://169.254.169.254/latest", method: "GET" }, "tenant-a");
    assert.equal(svc.ok, false);
    if (!svc.ok) assert.match(svc.error.message, /may not call a service/);
  });
});

describe("apiCall paths of a ClusterPolicy", () => {
  test("may read cluster-wide paths, still parsed strictly", () => {
    const r = checkApiCall(get("/api/v1/namespaces"), "");
    assert.ok(r.ok);
    assert.deepEqual(r.value.resource, { group: "", version: "v1", resource: "namespaces" });
    assert.equal(checkApiCall(get("/api/v1/namespaces/a/../b/pods"), "").ok, false);
    assert.equal(parseApiPath("/api/v1/pods").ok, true);
  });
});

describe("configMap namespaces", () => {
  test("empty means the policy's namespace, or default for a ClusterPolicy; a tenant stays home", () => {
    assert.deepEqual(checkConfigMapNamespace("", "tenant-a"), { ok: true, value: "tenant-a" });
    assert.deepEqual(checkConfigMapNamespace("", ""), { ok: true, value: "default" });
    assert.deepEqual(checkConfigMapNamespace("tenant-b", ""), { ok: true, value: "tenant-b" });
    const r = checkConfigMapNamespace("tenant-b", "tenant-a");
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.equal(r.error.message, `configMap namespace "tenant-b" is different from policy namespace "tenant-a"`);
  });
});

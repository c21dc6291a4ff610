/** Objects given offline answer reads as Kyverno's CLI fake client: by resource, namespace and name, lists, and API URL paths. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { OfflineResources } from "./offline-resources.js";
import { offlineContextSources } from "./offline-context.js";

const cm = (
  ns: string,
  name: string,
  labels: Record<string, string> = {},
): {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  data: { k: string };
} => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: ns, labels },
  data: { k: `${ns}/${name}` },
});
const hpa = {
  apiVersion: "autoscaling/v1",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "h", namespace: "default" },
  spec: {},
};
const store = new OfflineResources([cm("default", "a", { team: "x" }), cm("default", "b"), cm("other", "a"), hpa]);

describe("offline resources", () => {
  test("get finds an object by apiVersion, resource, namespace and name; a missing one is Kubernetes' not-found text", () => {
    const r = store.get({ apiVersion: "v1", resource: "configmaps", namespace: "other", name: "a" });
    assert.ok(r.ok);
    assert.deepEqual((r.value as { data: unknown }).data, { k: "other/a" });
    const missing = store.get({
      apiVersion: "autoscaling/v1",
      resource: "horizontalpodautoscalers",
      namespace: "default",
      name: "zz",
    });
    assert.ok(!missing.ok);
    assert.equal(missing.error.message, 'horizontalpodautoscalers.autoscaling "zz" not found');
    assert.ok(
      !store.get({ apiVersion: "v2", resource: "configmaps", namespace: "default", name: "a" }).ok,
      "another version is another resource",
    );
  });

  test("list gives the namespace's objects (all namespaces for ''), filtered by labels; a resource with no objects is an error", () => {
    const names = (ns: string, labels?: Record<string, string>): string[] => {
      const r = store.list({ apiVersion: "v1", resource: "configmaps", namespace: ns, ...(labels ? { labels } : {}) });
      assert.ok(r.ok);
      return (r.value as { items: { metadata: { namespace: string; name: string } }[] }).items.map(
        (i) => `${i.metadata.namespace}/${i.metadata.name}`,
      );
    };
    assert.deepEqual(names("default"), ["default/a", "default/b"]);
    assert.deepEqual(names(""), ["default/a", "default/b", "other/a"]);
    assert.deepEqual(names("default", { team: "x" }), ["default/a"]);
    assert.deepEqual(names("empty"), []);
    const none = store.list({ apiVersion: "v1", resource: "secrets", namespace: "default" });
    assert.ok(!none.ok);
    assert.equal(none.error.message, "secrets resource not found");
  });

  test("API URL paths of objects and lists", () => {
    const one = store.urlPath("/api/v1/namespaces/default/configmaps/b");
    assert.ok(one?.ok);
    assert.deepEqual((one.value as { data: unknown }).data, { k: "default/b" });
    const list = store.urlPath("/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers");
    assert.ok(list?.ok);
    assert.equal((list.value as { items: unknown[] }).items.length, 1);
    assert.equal(store.urlPath("/version"), undefined);
  });

  test("the offline context port answers configMap entries, apiCall GETs (after the mocks) and resource reads from the objects", () => {
    const ctx = offlineContextSources({
      resources: [cm("default", "a")],
      apiCalls: [{ urlPath: "/api/v1/namespaces/default/configmaps/a", statusCode: 200, body: { mocked: true } }],
    });
    assert.equal(ctx.canLoad("configMap"), true);
    assert.deepEqual(ctx.configMap("default", "a"), { ok: true, value: cm("default", "a") });
    assert.equal(ctx.configMap("default", "zz").ok, false);
    assert.deepEqual(ctx.apiCall({ urlPath: "/api/v1/namespaces/default/configmaps/a", method: "GET" }), {
      ok: true,
      value: { mocked: true },
    });
    const listed = ctx.apiCall({ urlPath: "/api/v1/namespaces/default/configmaps", method: "GET" });
    assert.ok(listed.ok);
    assert.equal((listed.value as { items: unknown[] }).items.length, 1);
    assert.equal(
      ctx.getResource?.({ apiVersion: "v1", resource: "configmaps", namespace: "default", name: "a" }).ok,
      true,
    );
  });

  test("without objects nothing is read: resource reads are Kyverno's CLI's errors, and a warning (once per resource) says where objects come from", () => {
    const warnings: string[] = [];
    const ctx = offlineContextSources({ onWarning: (w) => warnings.push(w) });
    assert.equal(ctx.canLoad("configMap"), false);
    const r = ctx.getResource?.({ apiVersion: "v1", resource: "configmaps", namespace: "default", name: "a" });
    assert.ok(r !== undefined && !r.ok);
    assert.equal(r.error.message, 'configmaps "a" not found');
    const l = ctx.listResources?.({
      apiVersion: "autoscaling/v2",
      resource: "horizontalpodautoscalers",
      namespace: "x",
    });
    assert.ok(l !== undefined && !l.ok);
    assert.equal(l.error.message, "horizontalpodautoscalers.autoscaling resource not found");
    ctx.getResource?.({ apiVersion: "v1", resource: "configmaps", namespace: "default", name: "b" });
    assert.equal(warnings.length, 2, "one warning per resource read");
    assert.match(warnings[0] ?? "", /reads configmaps from the cluster .*context file or clusterResources/);
    const img = ctx.imageData("busybox:1.35");
    assert.ok(!img.ok);
    assert.match(img.error.message, /image data for busybox:1.35 not found in the context/);
  });
});

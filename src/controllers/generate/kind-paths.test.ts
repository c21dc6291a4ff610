/**
 * KindPaths finds a kind installed after discovery was read (a CRD applied a moment before a policy
 * naming it) without waiting out the 30 s refresh, and a kind that stays unserved costs at most one
 * discovery request per group version every 2 s.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CORE_DISCOVERY, fakeKubeClient } from "../../../test/support/fake-kube-client.js";
import { KindPaths } from "./kind-paths.js";

const VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"];
const WIDGETS = { name: "widgets", kind: "Widget", namespaced: true, verbs: VERBS };

function cluster() {
  const answers: Record<string, unknown> = { ...CORE_DISCOVERY };
  const calls: string[] = [];
  let now = 1_000_000;
  const paths = new KindPaths(fakeKubeClient(answers, calls), () => now);
  return {
    paths,
    calls,
    answers,
    advance: (ms: number) => (now += ms),
    /** Installs the Widget CRD: /apis lists the group, its version lists the kind. */
    installWidgets: () => {
      answers["/apis"] = {
        groups: [{ name: "example.com", versions: [{ version: "v1" }], preferredVersion: { version: "v1" } }],
      };
      answers["/apis/example.com/v1"] = { resources: [WIDGETS] };
    },
  };
}

test("a kind installed after discovery was read is found at once by kind and by resource", async () => {
  const c = cluster();
  assert.equal((await c.paths.resolve("v1", "ConfigMap"))?.resource.resource, "configmaps");
  c.installWidgets();
  c.advance(1_000);
  const byKind = await c.paths.resolve("example.com/v1", "Widget");
  assert.equal(byKind?.collection("team"), "/apis/example.com/v1/namespaces/team/widgets");
  assert.equal(c.paths.namespaced("example.com/v1", "Widget"), true);

  const other = cluster();
  await other.paths.resolve("v1", "ConfigMap");
  other.installWidgets();
  other.advance(1_000);
  const byResource = await other.paths.listable("example.com", "v1", "widgets");
  assert.deepEqual(
    byResource.map((p) => p.collection("")),
    ["/apis/example.com/v1/widgets"],
  );
});

test("a kind that stays unserved: one request for its group version every 2 s, no full discovery before 30 s", async () => {
  const c = cluster();
  await c.paths.resolve("v1", "ConfigMap");
  c.calls.length = 0;
  for (let i = 0; i < 10; i++) {
    assert.equal(await c.paths.resolve("example.com/v1", "Widget"), undefined);
    assert.deepEqual(await c.paths.listable("example.com", "v1", "widgets"), []);
    c.advance(100);
  }
  assert.deepEqual(c.calls, ["GET /apis/example.com/v1"], "one check within 2 s");
  c.advance(2_000);
  assert.equal(await c.paths.resolve("example.com/v1", "Widget"), undefined);
  assert.deepEqual(c.calls, ["GET /apis/example.com/v1", "GET /apis/example.com/v1"]);
});

test("a wildcard or an apiVersion-less kind not found waits for the 30 s refresh", async () => {
  const c = cluster();
  await c.paths.resolve("v1", "ConfigMap");
  c.installWidgets();
  c.calls.length = 0;
  c.advance(1_000);
  assert.deepEqual(await c.paths.listable("example.com", "*", "widgets"), []);
  assert.equal(await c.paths.resolve("", "Widget"), undefined);
  assert.deepEqual(c.calls, []);
  c.advance(30_000);
  assert.equal((await c.paths.resolve("", "Widget"))?.resource.group, "example.com");
});

test("a kind its group version serves only as a subresource (Scale) is not found, and discovery is not read again for it", async () => {
  const c = cluster();
  c.installWidgets();
  c.answers["/apis/example.com/v1"] = {
    resources: [WIDGETS, { name: "widgets/scale", kind: "Scale", namespaced: true, verbs: ["get", "update"] }],
  };
  await c.paths.resolve("v1", "ConfigMap");
  c.calls.length = 0;
  for (let i = 0; i < 3; i++) {
    assert.equal(await c.paths.resolve("example.com/v1", "Scale"), undefined);
    c.advance(2_500);
  }
  assert.deepEqual(c.calls, ["GET /apis/example.com/v1", "GET /apis/example.com/v1", "GET /apis/example.com/v1"]);
});

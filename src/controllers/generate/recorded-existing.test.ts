/**
 * A namespaced Policy's clone sources and mutate targets are read only in its namespace (tenant
 * rule 1, after substitution): an UpdateRequest whose foreach clone source comes from the
 * trigger's label fails with the reason, and the API is never asked for the other namespace's
 * object; the same rule in the policy's own namespace copies the source.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy } from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { fakeKubeClient } from "../../../test/support/fake-kube-client.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { KindPaths } from "./kind-paths.js";
import { RecordedExisting } from "./recorded-existing.js";
import { runUpdateRequest } from "./run-update-request.js";
import type { UpdateRequest } from "./update-request.js";

const LIST = ["get", "list", "watch", "create", "update", "delete"];
const canary = (namespace: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "canary", namespace, uid: `s-${namespace}` },
  data: { value: "c2VjcmV0" },
});
const trigger = (source: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "trigger", namespace: "tenant-a", uid: "t-1", labels: { source } },
});
const API: Record<string, unknown> = {
  "/api/v1": {
    resources: [
      { name: "namespaces", kind: "Namespace", namespaced: false, verbs: LIST },
      { name: "configmaps", kind: "ConfigMap", namespaced: true, verbs: LIST },
      { name: "secrets", kind: "Secret", namespaced: true, verbs: LIST },
    ],
  },
  "/apis": { groups: [] },
  "/api/v1/namespaces/tenant-a": { metadata: { name: "tenant-a" } },
  "/api/v1/namespaces/tenant-b/secrets/canary": canary("tenant-b"),
  "/api/v1/namespaces/tenant-a/secrets/canary": canary("tenant-a"),
  "/api/v1/namespaces": { items: [{ metadata: { name: "tenant-a" } }, { metadata: { name: "tenant-b" } }] },
};

function fakeClient(source: string, calls: string[]): KubeClient {
  return fakeKubeClient({ ...API, "/api/v1/namespaces/tenant-a/configmaps/trigger": trigger(source) }, calls);
}

function policy(): CompiledPolicy {
  const r = createEngine(fakePorts()).compile({
    apiVersion: "kyverno.io/v1",
    kind: "Policy",
    metadata: { name: "copy-in", namespace: "tenant-a" },
    spec: {
      rules: [
        {
          name: "copy-in",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          generate: {
            foreach: [
              {
                list: "[request.object.metadata.labels.source]",
                apiVersion: "v1",
                kind: "Secret",
                name: "copied",
                namespace: "tenant-a",
                clone: { namespace: "{{ element }}", name: "canary" },
              },
            ],
          },
        },
      ],
    },
  });
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

const request: UpdateRequest = {
  requestType: "generate",
  name: "ur-1",
  namespace: "bylaw",
  resourceVersion: "1",
  policy: "tenant-a/copy-in",
  rules: [
    {
      rule: "copy-in",
      synchronize: false,
      deleteDownstream: false,
      trigger: { apiVersion: "v1", kind: "ConfigMap", namespace: "tenant-a", name: "trigger", uid: "t-1" },
    },
  ],
  trigger: { apiVersion: "v1", kind: "ConfigMap", namespace: "tenant-a", name: "trigger", uid: "t-1" },
  operation: "CREATE",
  userInfo: { username: "tenant-a-admin" },
  admissionRequest: undefined,
  state: "Pending",
  message: "",
  retryCount: 0,
};

async function run(source: string): Promise<{ calls: string[]; state: string; message: string }> {
  const calls: string[] = [];
  const client = fakeClient(source, calls);
  const compiled = policy();
  const outcome = await runUpdateRequest(request, { client, paths: new KindPaths(client), policies: () => [compiled] });
  return { calls, state: outcome.state, message: outcome.message };
}

test("a foreach clone source in another namespace (from the trigger's label) fails the request, unread", async () => {
  const { calls, state, message } = await run("tenant-b");
  assert.equal(state, "Failed");
  assert.match(message, /copy-in/);
  assert.match(
    message,
    /a namespaced policy \(namespace tenant-a\) reaches only its own namespace: may not read Secret in namespace "tenant-b"/,
  );
  assert.deepEqual(
    calls.filter((c) => c.includes("tenant-b")),
    [],
    "the other namespace's Secret was not read",
  );
  assert.deepEqual(
    calls.filter((c) => !c.startsWith("GET ")),
    [],
    "nothing was written",
  );
});

test("the same rule copies the source in its own namespace", async () => {
  const { calls, state, message } = await run("tenant-a");
  assert.equal(state, "Completed", message);
  assert.ok(calls.includes("POST /api/v1/namespaces/tenant-a/secrets"), calls.join("\n"));
});

test("a confined port refuses a cluster-scoped kind and a list across namespaces; an unconfined one reads them", async () => {
  const calls: string[] = [];
  const client = fakeClient("tenant-a", calls);
  const paths = new KindPaths(client);
  const confined = new RecordedExisting(client, paths, "tenant-a");
  assert.equal(confined.port().list("v1", "Namespace", "tenant-a").ok, false);
  assert.equal(confined.port().list("v1", "Secret", "").ok, false);
  await confined.settle();
  const ns = confined.port().list("v1", "Namespace", "tenant-a");
  assert.ok(!ns.ok && ns.error.kind === "refused");
  assert.match(ns.error.message, /may not read the cluster-scoped kind Namespace/);
  const all = confined.port().list("v1", "Secret", "");
  assert.ok(!all.ok && /may not read Secret in all namespaces/.test(all.error.message));
  assert.deepEqual(
    calls.filter((c) => c.includes("/namespaces") && !c.endsWith("/api/v1")),
    [],
    "no object was read",
  );
  const open = new RecordedExisting(client, paths);
  open.port().list("v1", "Namespace", "");
  await open.settle();
  const listed = open.port().list("v1", "Namespace", "");
  assert.ok(listed.ok && listed.value.length === 2);
});

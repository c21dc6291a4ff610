/**
 * generateExisting's trigger walk over a fake API (discovery documents and lists): resourceRules
 * with `*` list every listable resource that fits, once; namespaceSelector and objectSelector
 * decide on each listed object; a custom resource is matched by its plural from discovery.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { generatingExistingWork } from "./generating-existing.js";
import { KindPaths } from "./kind-paths.js";

const LIST = ["get", "list", "watch"];
const API: Record<string, unknown> = {
  "/api/v1": {
    resources: [
      { name: "namespaces", kind: "Namespace", namespaced: false, verbs: LIST },
      { name: "configmaps", kind: "ConfigMap", namespaced: true, verbs: LIST },
      { name: "configmaps/status", kind: "ConfigMap", namespaced: true, verbs: LIST },
      { name: "bindings", kind: "Binding", namespaced: true, verbs: ["create"] },
    ],
  },
  "/apis": {
    groups: [
      { name: "example.com", versions: [{ version: "v1" }, { version: "v2" }], preferredVersion: { version: "v2" } },
    ],
  },
  "/apis/example.com/v1": { resources: [{ name: "widgets", kind: "Widget", namespaced: true, verbs: LIST }] },
  "/apis/example.com/v2": { resources: [{ name: "widgets", kind: "Widget", namespaced: true, verbs: LIST }] },
  "/api/v1/namespaces": {
    items: [
      { metadata: { name: "team-a", uid: "ns-a", labels: { tier: "team" } } },
      { metadata: { name: "kube-system", uid: "ns-k" } },
    ],
  },
  "/api/v1/configmaps": {
    items: [
      { metadata: { name: "keep", namespace: "team-a", uid: "cm-1", labels: { sync: "yes" } } },
      { metadata: { name: "unlabelled", namespace: "team-a", uid: "cm-2" } },
      { metadata: { name: "system", namespace: "kube-system", uid: "cm-3", labels: { sync: "yes" } } },
    ],
  },
  "/apis/example.com/v2/widgets": {
    items: [{ metadata: { name: "w", namespace: "team-a", uid: "w-1", labels: { sync: "yes" } } }],
  },
};

function fakeClient(reads: string[]): KubeClient {
  return {
    getJson: (path: string): Promise<unknown> => {
      reads.push(path);
      const answer = API[path];
      return answer === undefined ? Promise.reject(new Error(`GET ${path}: 404 not found`)) : Promise.resolve(answer);
    },
  } as unknown as KubeClient;
}

function policy(matchConstraints: JsonObject) {
  const r = createEngine(fakePorts()).compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: "gp", generation: 1 },
    spec: {
      matchConstraints,
      evaluation: { generateExisting: { enabled: true } },
      generate: [{ expression: "true" }],
    },
  });
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

async function triggers(matchConstraints: JsonObject, reads: string[] = []): Promise<string[]> {
  const client = fakeClient(reads);
  const work = await generatingExistingWork(policy(matchConstraints), { client, paths: new KindPaths(client) });
  return work.map((w) => `${w.trigger.apiVersion}/${w.trigger.kind} ${w.trigger.namespace}/${w.trigger.name}`).sort();
}

const all = (resources: string[], apiGroups = ["*"]) => ({
  resourceRules: [{ apiGroups, apiVersions: ["*"], operations: ["CREATE"], resources }],
});

test("resourceRules with `*` list every listable resource that fits, once, in the preferred version", async () => {
  const reads: string[] = [];
  assert.deepEqual(await triggers(all(["*"]), reads), [
    "example.com/v2/Widget team-a/w",
    "v1/ConfigMap kube-system/system",
    "v1/ConfigMap team-a/keep",
    "v1/ConfigMap team-a/unlabelled",
    "v1/Namespace /kube-system",
    "v1/Namespace /team-a",
  ]);
  // No subresource, nothing without the list verb, no second version of the same resource.
  assert.ok(!reads.some((p) => p.includes("bindings") || p.includes("/status") || p.includes("v1/widgets")));
  assert.deepEqual(await triggers(all(["widgets"], ["example.com"])), ["example.com/v2/Widget team-a/w"]);
  assert.deepEqual(await triggers(all(["configmaps/*"])), []);
});

test("objectSelector and namespaceSelector decide on each listed object", async () => {
  assert.deepEqual(
    await triggers({ ...all(["configmaps", "widgets"]), objectSelector: { matchLabels: { sync: "yes" } } }),
    ["example.com/v2/Widget team-a/w", "v1/ConfigMap kube-system/system", "v1/ConfigMap team-a/keep"],
  );
  assert.deepEqual(
    await triggers({
      ...all(["configmaps"]),
      objectSelector: { matchLabels: { sync: "yes" } },
      namespaceSelector: { matchExpressions: [{ key: "tier", operator: "In", values: ["team"] }] },
    }),
    ["v1/ConfigMap team-a/keep"],
  );
});

test("excludeResourceRules leave out what they name", async () => {
  assert.deepEqual(
    await triggers({
      ...all(["*"]),
      excludeResourceRules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] },
      ],
    }),
    ["example.com/v2/Widget team-a/w", "v1/Namespace /kube-system", "v1/Namespace /team-a"],
  );
});

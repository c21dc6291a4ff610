/**
 * A mutate UpdateRequest whose trigger the API server does not show (yet): the request is written
 * at admission, before the trigger is stored, so the outcome is Failed but transient (the
 * controller looks again with its backoff); once the trigger is there, its target is patched.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { CORE_DISCOVERY, fakeKubeClient } from "../../../test/support/fake-kube-client.js";
import { KindPaths } from "../generate/kind-paths.js";
import type { UpdateRequest } from "../generate/update-request.js";
import { runMutateRequest } from "./run-mutate-request.js";

const API: Record<string, unknown> = {
  ...CORE_DISCOVERY,
  "/api/v1/namespaces/team": { metadata: { name: "team" } },
  "/api/v1/namespaces/team/configmaps/target": {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "target", namespace: "team", uid: "u-target", resourceVersion: "5" },
  },
};

const TRIGGER = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "trigger", namespace: "team", uid: "u-trigger" },
};

function policy(): CompiledPolicy {
  const r = createEngine(fakePorts()).compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "label-target" },
    spec: {
      rules: [
        {
          name: "label-target",
          match: { any: [{ resources: { kinds: ["ConfigMap"], names: ["trigger"] } }] },
          mutate: {
            targets: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "team", name: "target" }],
            patchStrategicMerge: { metadata: { labels: { touched: "yes" } } },
          },
        },
      ],
    },
  });
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

const request = (operation: string): UpdateRequest => ({
  requestType: "mutate",
  name: "ur-1",
  namespace: "bylaw",
  resourceVersion: "1",
  policy: "label-target",
  rules: [
    {
      rule: "label-target",
      synchronize: false,
      deleteDownstream: false,
      trigger: { apiVersion: "v1", kind: "ConfigMap", namespace: "team", name: "trigger", uid: "u-trigger" },
    },
  ],
  trigger: { apiVersion: "v1", kind: "ConfigMap", namespace: "team", name: "trigger", uid: "u-trigger" },
  operation,
  userInfo: { username: "alice" },
  admissionRequest: undefined,
  state: "Pending",
  message: "",
  retryCount: 0,
});

test("a trigger not stored yet: Failed but transient, nothing written; once stored, the target is patched", async () => {
  const compiled = policy();
  const calls: string[] = [];
  const early = fakeKubeClient(API, calls);
  const first = await runMutateRequest(request("CREATE"), {
    client: early,
    paths: new KindPaths(early),
    policies: () => [compiled],
  });
  assert.equal(first.state, "Failed");
  assert.equal(first.transient, true, "looked for again");
  assert.match(first.message, /failed to get the trigger ConfigMap team\/trigger: not found/);
  assert.deepEqual(
    calls.filter((c) => !c.startsWith("GET ")),
    [],
    "nothing written",
  );

  const later = fakeKubeClient(
    {
      ...API,
      "/api/v1/namespaces/team/configmaps/trigger": TRIGGER,
      "/api/v1/namespaces/team/configmaps": { items: [API["/api/v1/namespaces/team/configmaps/target"], TRIGGER] },
    },
    calls,
  );
  const second = await runMutateRequest(request("CREATE"), {
    client: later,
    paths: new KindPaths(later),
    policies: () => [compiled],
  });
  assert.equal(second.state, "Completed", second.message);
  assert.ok(
    calls.some((c) => c.endsWith("/api/v1/namespaces/team/configmaps/target")),
    `the target was written: ${calls.join(", ")}`,
  );
});

test("a DELETE's trigger is gone by design, and a kind the API server does not serve will not appear: neither is retried", async () => {
  const compiled = policy();
  const client = fakeKubeClient(API, []);
  const deps = { client, paths: new KindPaths(client), policies: () => [compiled] };
  assert.equal((await runMutateRequest(request("DELETE"), deps)).transient, false);
  const unknown = {
    ...request("CREATE"),
    trigger: { apiVersion: "example.com/v1", kind: "NoSuchKind", namespace: "team", name: "x", uid: "" },
  };
  const outcome = await runMutateRequest(unknown, deps);
  assert.equal(outcome.state, "Failed");
  assert.equal(outcome.transient, false);
});

/**
 * A generate UpdateRequest whose trigger the API server does not show yet: the webhook writes the
 * request while the trigger is still being admitted, so the outcome is Failed but transient (the
 * controller looks again with its backoff) and nothing is written or deleted; once the trigger is
 * stored, what the rule generates is created. A DELETE's trigger is gone by design: its downstream
 * is deleted at once, never retried.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { CORE_DISCOVERY, fakeKubeClient } from "../../../test/support/fake-kube-client.js";
import { KindPaths } from "./kind-paths.js";
import type { UpdateRequest } from "./update-request.js";
import { runUpdateRequest } from "./run-update-request.js";

const API: Record<string, unknown> = {
  ...CORE_DISCOVERY,
  "/api/v1/namespaces/team": { metadata: { name: "team" } },
};

const TRIGGER = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "web", namespace: "team", uid: "u-web" },
};

function compile(doc: JsonObject): CompiledPolicy {
  const r = createEngine(fakePorts()).compile(doc);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

const kyvernoPolicy = (): CompiledPolicy =>
  compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "derive" },
    spec: {
      rules: [
        {
          name: "derive",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          generate: {
            apiVersion: "v1",
            kind: "ConfigMap",
            name: "{{request.object.metadata.name}}-derived",
            namespace: "{{request.object.metadata.namespace}}",
            synchronize: true,
            data: { data: { from: "{{request.object.metadata.name}}" } },
          },
        },
      ],
    },
  });

const generatingPolicy = (): CompiledPolicy =>
  compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: "derive" },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] },
        ],
      },
      evaluation: { synchronize: { enabled: true } },
      generate: [
        {
          expression:
            'generator.Apply(object.metadata.namespace, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"), "metadata": dyn({"name": object.metadata.name + "-derived"}), "data": dyn({"from": object.metadata.name})}])',
        },
      ],
    },
  });

const request = (o: {
  operation: string;
  generating: boolean;
  deleteDownstream?: boolean;
  admissionRequest?: JsonObject;
  retryCount?: number;
}): UpdateRequest => {
  const trigger = { apiVersion: "v1", kind: "ConfigMap", namespace: "team", name: "web", uid: "u-web" };
  return {
    requestType: o.generating ? "cel-generate" : "generate",
    name: "ur-1",
    namespace: "bylaw",
    resourceVersion: "1",
    policy: "derive",
    rules: [{ rule: "derive", synchronize: true, deleteDownstream: o.deleteDownstream ?? false, trigger }],
    trigger,
    operation: o.operation,
    userInfo: { username: "alice" },
    admissionRequest: o.admissionRequest,
    state: "Pending",
    message: "",
    retryCount: o.retryCount ?? 0,
  };
};

const writes = (calls: readonly string[]): string[] => calls.filter((c) => !c.startsWith("GET "));

for (const generating of [false, true]) {
  const kind = generating ? "GeneratingPolicy" : "ClusterPolicy";
  test(`${kind}: a trigger not stored yet fails, transient, nothing written; once stored, its object is created`, async () => {
    const compiled = generating ? generatingPolicy() : kyvernoPolicy();
    const calls: string[] = [];
    const early = fakeKubeClient(API, calls);
    const first = await runUpdateRequest(request({ operation: "CREATE", generating }), {
      client: early,
      paths: new KindPaths(early),
      policies: () => [compiled],
    });
    assert.equal(first.state, "Failed");
    assert.equal(first.transient, true, "looked for again");
    assert.match(
      first.message,
      generating
        ? /^gpol derive failed: failed to fetch trigger resource: trigger resource v1\/ConfigMap team\/web with uid u-web not found in the cluster/
        : /^rule derive failed: failed to fetch trigger resource: trigger resource v1\/ConfigMap team\/web with uid u-web not found/,
    );
    assert.deepEqual(writes(calls), [], "nothing written or deleted");

    calls.length = 0;
    const later = fakeKubeClient({ ...API, "/api/v1/namespaces/team/configmaps/web": TRIGGER }, calls);
    const second = await runUpdateRequest(request({ operation: "CREATE", generating }), {
      client: later,
      paths: new KindPaths(later),
      policies: () => [compiled],
    });
    assert.equal(second.state, "Completed", second.message);
    assert.deepEqual(
      second.generated.map((g) => `${g.namespace}/${g.name}`),
      ["team/web-derived"],
    );
    assert.ok(
      writes(calls).some((c) => c.startsWith("POST /api/v1/namespaces/team/configmaps")),
      writes(calls).join(", "),
    );
  });

  test(`${kind}: a DELETE's trigger is gone by design: completed at once, not retried`, async () => {
    const compiled = generating ? generatingPolicy() : kyvernoPolicy();
    const client = fakeKubeClient(API, []);
    const outcome = await runUpdateRequest(request({ operation: "DELETE", generating, deleteDownstream: true }), {
      client,
      paths: new KindPaths(client),
      policies: () => [compiled],
    });
    assert.equal(outcome.state, "Completed", outcome.message);
    assert.equal(outcome.transient, false);
  });
}

test("a trigger of a kind the API server does not serve will not appear: Failed, not retried", async () => {
  const compiled = kyvernoPolicy();
  const client = fakeKubeClient(API, []);
  const ur = request({ operation: "CREATE", generating: false });
  const trigger = { apiVersion: "example.com/v1", kind: "NoSuchKind", namespace: "team", name: "x", uid: "" };
  const outcome = await runUpdateRequest(
    { ...ur, trigger, rules: ur.rules.map((r) => ({ ...r, trigger })) },
    { client, paths: new KindPaths(client), policies: () => [compiled] },
  );
  assert.equal(outcome.state, "Failed");
  assert.equal(outcome.transient, false);
  assert.match(outcome.message, /the API server does not serve this kind/);
});

/** The trigger at a resourceVersion, with `data.v`. */
const triggerAt = (resourceVersion: string, v: string): JsonObject => ({
  ...TRIGGER,
  metadata: { ...TRIGGER.metadata, resourceVersion },
  data: { v },
});

const UPDATE_ONE_TO_TWO: JsonObject = {
  operation: "UPDATE",
  oldObject: triggerAt("10", "one"),
  object: triggerAt("10", "two"),
};

async function runUpdate(o: { live: JsonObject; admissionRequest: JsonObject; retryCount?: number }) {
  const calls: string[] = [];
  const client = fakeKubeClient({ ...API, "/api/v1/namespaces/team/configmaps/web": o.live }, calls);
  const outcome = await runUpdateRequest(
    request({
      operation: "UPDATE",
      generating: false,
      admissionRequest: o.admissionRequest,
      retryCount: o.retryCount ?? 0,
    }),
    { client, paths: new KindPaths(client), policies: () => [kyvernoPolicy()] },
  );
  return { outcome, writes: writes(calls) };
}

test("an UPDATE the API server still shows at the old resourceVersion is not run on the old object: Failed, transient, nothing written", async () => {
  const { outcome, writes: w } = await runUpdate({ live: triggerAt("10", "one"), admissionRequest: UPDATE_ONE_TO_TWO });
  assert.equal(outcome.state, "Failed");
  assert.equal(outcome.transient, true);
  assert.match(
    outcome.message,
    /^rule derive failed: failed to fetch trigger resource: trigger resource v1\/ConfigMap team\/web is still at resourceVersion 10: the UPDATE is not stored yet/,
  );
  assert.deepEqual(w, []);
});

test("an UPDATE once stored, a no-op UPDATE at once, and one still unstored after the waiting tries (another webhook refused it): run on the live object", async () => {
  const stored = await runUpdate({ live: triggerAt("11", "two"), admissionRequest: UPDATE_ONE_TO_TWO });
  assert.equal(stored.outcome.state, "Completed", stored.outcome.message);
  const noop = await runUpdate({
    live: triggerAt("10", "one"),
    admissionRequest: { operation: "UPDATE", oldObject: triggerAt("10", "one"), object: triggerAt("10", "one") },
  });
  assert.equal(noop.outcome.state, "Completed", noop.outcome.message);
  const refused = await runUpdate({ live: triggerAt("10", "one"), admissionRequest: UPDATE_ONE_TO_TWO, retryCount: 3 });
  assert.equal(refused.outcome.state, "Completed", refused.outcome.message);
  assert.deepEqual(
    refused.outcome.generated.map((g) => `${g.namespace}/${g.name}`),
    ["team/web-derived"],
  );
});

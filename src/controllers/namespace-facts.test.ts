import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../engine/index.js";
import { KubeError, type KubeClient } from "../kube/kube-client.js";
import { fakeKubeClient } from "../../test/support/fake-kube-client.js";
import { fakePorts } from "../../test/support/fake-ports.js";
import { engineRequest } from "./generate/evaluate-rules.js";
import { namespaceFactsByName, NO_NAMESPACE, ownNamespaceFacts, readNamespaceFacts } from "./namespace-facts.js";

const shop: JsonObject = {
  metadata: { name: "shop", resourceVersion: "4", labels: { team: "a" }, annotations: { owner: "payments" } },
  spec: { finalizers: ["kubernetes"] },
};

test("a Namespace read from the API server gives its labels and the whole object, kind and apiVersion set", async () => {
  const calls: string[] = [];
  const facts = await readNamespaceFacts(fakeKubeClient({ "/api/v1/namespaces/shop": shop }, calls), "shop");
  assert.deepEqual(facts.namespaceLabels, { team: "a" });
  assert.deepEqual(facts.namespaceObject, { ...shop, apiVersion: "v1", kind: "Namespace" });
  assert.deepEqual(calls, ["GET /api/v1/namespaces/shop"]);
});

test("no namespace, or one that is not there: no labels and no object; another failure is the client's error", async () => {
  const calls: string[] = [];
  assert.equal(await readNamespaceFacts(fakeKubeClient({}, calls), ""), NO_NAMESPACE);
  assert.deepEqual(calls, []);
  assert.equal(await readNamespaceFacts(fakeKubeClient({}), "gone"), NO_NAMESPACE);
  const failing = {
    getJson: () => Promise.reject(new KubeError("GET: forbidden", 403, "Forbidden")),
  } as unknown as KubeClient;
  await assert.rejects(readNamespaceFacts(failing, "shop"), /forbidden/);
});

test("a listing gives each Namespace's facts by name", () => {
  const byName = namespaceFactsByName({ items: [shop, { metadata: { name: "bare" } }] });
  assert.deepEqual([...byName.keys()], ["shop", "bare"]);
  assert.deepEqual(byName.get("bare"), {
    namespaceLabels: {},
    namespaceObject: { apiVersion: "v1", kind: "Namespace", metadata: { name: "bare" } },
  });
});

test("a background request (generate, mutate-existing) carries the Namespace to CEL's namespaceObject", () => {
  const engine = createEngine(fakePorts());
  const compiled = engine.compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "owned" },
    spec: {
      validationActions: ["Audit"],
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
      },
      validations: [
        { expression: "namespaceObject.metadata.?annotations['owner'].orValue('') != ''", message: "no owner" },
      ],
    },
  });
  assert.ok(compiled.ok, JSON.stringify(compiled));
  const trigger = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "shop" } };
  const ur = { userInfo: { username: "u" }, operation: "CREATE" } as unknown as Parameters<
    typeof engineRequest
  >[0]["ur"];
  const results = (facts: Parameters<typeof namespaceFactsByName>[0]) =>
    engine
      .validate(
        compiled.policy,
        engineRequest({ ur, trigger, ...(namespaceFactsByName(facts).get("shop") ?? NO_NAMESPACE) }),
      )
      .rules.map((r) => r.status);
  assert.deepEqual(results({ items: [shop] }), ["pass"]);
  const unowned = { metadata: { name: "shop", labels: { team: "a" } } };
  assert.deepEqual(results({ items: [unowned] }), ["fail"]);
});

test("a listed Namespace gives its own facts (labels, itself as namespaceObject); any other object none", () => {
  const ns: JsonObject = { apiVersion: "v1", kind: "Namespace", ...shop };
  assert.deepEqual(ownNamespaceFacts(ns), { namespaceLabels: { team: "a" }, namespaceObject: ns });
  assert.equal(
    ownNamespaceFacts({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "shop" } }),
    undefined,
  );
  assert.equal(
    ownNamespaceFacts({ apiVersion: "example.com/v1", kind: "Namespace", metadata: { name: "x" } }),
    undefined,
  );
});

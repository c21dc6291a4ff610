/**
 * The work a synchronized GeneratingPolicy's watches bring: a labelled copy changed or deleted runs
 * its trigger again (found by uid), only for a loaded GeneratingPolicy that synchronizes; a changed
 * source runs each trigger with a copy once.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { copiesWork, downstreamEventWork } from "./generating-sync-work.js";

function compile(document: JsonObject) {
  const r = createEngine(fakePorts()).compile(document);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

const gpol = (name: string, synchronize: boolean, namespace?: string) =>
  compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: namespace === undefined ? "GeneratingPolicy" : "NamespacedGeneratingPolicy",
    metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
      },
      evaluation: { synchronize: { enabled: synchronize } },
      generate: [{ expression: "true" }],
    },
  });

const classic = compile({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "classic" },
  spec: {
    rules: [
      {
        name: "r",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        generate: {
          synchronize: true,
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "x",
          namespace: "{{request.object.metadata.namespace}}",
          data: { data: { a: "b" } },
        },
      },
    ],
  },
});

const copy = (labels: Record<string, string>, name = "web-derived") => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "apps", labels },
});

const labelsFor = (policy: string, uid: string, namespace = "") => ({
  "generate.kyverno.io/policy-name": policy,
  "generate.kyverno.io/policy-namespace": namespace,
  "generate.kyverno.io/rule-name": "",
  "generate.kyverno.io/trigger-group": "",
  "generate.kyverno.io/trigger-version": "v1",
  "generate.kyverno.io/trigger-kind": "ConfigMap",
  "generate.kyverno.io/trigger-namespace": "apps",
  "generate.kyverno.io/trigger-uid": uid,
});

const policies = [gpol("derive", true), gpol("once", false), gpol("mine", true, "tenant-a"), classic];

test("a changed copy of a synchronized GeneratingPolicy runs its trigger again, found by uid", () => {
  const work = downstreamEventWork(copy(labelsFor("derive", "u-1")), policies);
  assert.deepEqual(work, {
    requestType: "cel-generate",
    policy: "derive",
    rules: [{ rule: "derive", synchronize: true, deleteDownstream: false }],
    trigger: { apiVersion: "v1", kind: "ConfigMap", namespace: "apps", name: "", uid: "u-1" },
    operation: "CREATE",
    userInfo: {},
    admissionRequest: {},
  });
  assert.equal(downstreamEventWork(copy(labelsFor("mine", "u-2", "tenant-a")), policies)?.policy, "tenant-a/mine");
});

test("no work for a policy that does not synchronize, a classic rule's copy, a gone policy or no trigger uid", () => {
  assert.equal(downstreamEventWork(copy(labelsFor("once", "u-1")), policies), undefined);
  assert.equal(
    downstreamEventWork(copy({ ...labelsFor("classic", "u-1"), "generate.kyverno.io/rule-name": "r" }), policies),
    undefined,
  );
  assert.equal(downstreamEventWork(copy(labelsFor("gone", "u-1")), policies), undefined);
  assert.equal(downstreamEventWork(copy(labelsFor("derive", "")), policies), undefined);
  assert.equal(downstreamEventWork(copy({}), policies), undefined);
  // The namespaced policy's name without its namespace names another (cluster-wide) policy.
  assert.equal(downstreamEventWork(copy(labelsFor("mine", "u-2")), policies), undefined);
});

test("a changed source runs each trigger with a copy once, and only the policy's own copies", () => {
  const derive = policies[0];
  assert.ok(derive !== undefined);
  const work = copiesWork(derive, [
    copy(labelsFor("derive", "u-1"), "a"),
    copy(labelsFor("derive", "u-1"), "b"),
    copy(labelsFor("derive", "u-2"), "c"),
    copy(labelsFor("mine", "u-3", "tenant-a"), "d"),
    copy({}, "e"),
  ]);
  assert.deepEqual(
    work.map((w) => `${w.policy} ${w.trigger.uid}`),
    ["derive u-1", "derive u-2"],
  );
});

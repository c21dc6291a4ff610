/**
 * The mutate-existing work an allowed review brings (mutate-existing-work.ts): one item per rule
 * that matches the trigger and whose preconditions hold; none for a dry run, another kind, a DELETE,
 * or the background controller's own writes.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { mutateExistingWorkFor } from "./mutate-existing-work.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const LABEL_SECRETS: JsonObject = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "label-secrets" },
  spec: {
    rules: [
      {
        name: "on-dictionary",
        match: { any: [{ resources: { kinds: ["ConfigMap"], names: ["dictionary-*"] } }] },
        preconditions: { all: [{ key: "{{ request.object.data.skip || '' }}", operator: "NotEquals", value: "yes" }] },
        mutate: {
          targets: [{ apiVersion: "v1", kind: "Secret", namespace: "{{ request.object.metadata.namespace }}" }],
          patchStrategicMerge: { metadata: { labels: { foo: "bar" } } },
        },
      },
    ],
  },
};

const cm = (name: string, data: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "staging", uid: "u-1" },
  data,
});
const deps = () => fakeDeps({ policies: [LABEL_SECRETS] }).deps;

describe("mutate-existing work from an allowed review", () => {
  test("a created trigger: a mutate request for the policy, the rule and the trigger", () => {
    const work = mutateExistingWorkFor(reviewOf(cm("dictionary-1")), deps());
    assert.equal(work.length, 1);
    assert.equal(work[0]?.requestType, "mutate");
    assert.equal(work[0]?.policy, "label-secrets");
    assert.deepEqual(work[0]?.rules, [{ rule: "on-dictionary", synchronize: false, deleteDownstream: false }]);
    assert.deepEqual(work[0]?.trigger, {
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "staging",
      name: "dictionary-1",
      uid: "u-1",
    });
  });

  test("no work when the rule does not match or its preconditions do not hold", () => {
    assert.deepEqual(mutateExistingWorkFor(reviewOf(cm("other")), deps()), []);
    assert.deepEqual(mutateExistingWorkFor(reviewOf(cm("dictionary-1", { skip: "yes" })), deps()), []);
  });

  test("no work for a dry run or the background controller's own writes", () => {
    assert.deepEqual(mutateExistingWorkFor(reviewOf(cm("dictionary-1"), { dryRun: true }), deps()), []);
    const controller = { username: "system:serviceaccount:bylaw:bylaw-background-controller", groups: [] };
    assert.deepEqual(mutateExistingWorkFor(reviewOf(cm("dictionary-1"), { userInfo: controller }), deps()), []);
  });
});

describe("mutate-existing work from a MutatingPolicy", () => {
  const MPOL: JsonObject = {
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name: "label-secrets-mp" },
    spec: {
      evaluation: { mutateExisting: { enabled: true } },
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] },
        ],
      },
      matchConditions: [{ name: "dictionary", expression: "object.metadata.name.startsWith('dictionary-')" }],
      targetMatchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["secrets"] },
        ],
      },
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"foo": "bar"}}}' },
        },
      ],
    },
  };
  const cmReview = (name: string) =>
    reviewOf(cm(name), { resource: { group: "", version: "v1", resource: "configmaps" } });
  const mpDeps = () => fakeDeps({ policies: [MPOL] }).deps;

  test("a trigger its matchConstraints and matchConditions select: one mutate request, rule ''", () => {
    const work = mutateExistingWorkFor(cmReview("dictionary-1"), mpDeps());
    assert.equal(work.length, 1);
    assert.equal(work[0]?.policy, "label-secrets-mp");
    assert.deepEqual(work[0]?.rules, [{ rule: "", synchronize: false, deleteDownstream: false }]);
  });

  test("no work when its matchConditions are false, or without mutateExisting", () => {
    assert.deepEqual(mutateExistingWorkFor(cmReview("other"), mpDeps()), []);
    const off = { ...MPOL, spec: { ...(MPOL["spec"] as JsonObject), evaluation: {} } };
    assert.deepEqual(mutateExistingWorkFor(cmReview("dictionary-1"), fakeDeps({ policies: [off] }).deps), []);
  });
});

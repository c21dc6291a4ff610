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

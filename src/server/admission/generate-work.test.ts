/**
 * The generate work an allowed review brings (generate-work.ts): the rules a trigger matches, the
 * synchronized rules a deleted trigger had, a drifted copy's trigger, a changed clone source; and
 * none for a dry run or the generate controller's own writes.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { generateWorkFor } from "./generate-work.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const SYNC_SECRETS: JsonObject = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "sync-secrets" },
  spec: {
    rules: [
      {
        name: "copy",
        match: { any: [{ resources: { kinds: ["Namespace"] } }] },
        generate: {
          apiVersion: "v1",
          kind: "Secret",
          name: "regcred",
          namespace: "{{request.object.metadata.name}}",
          synchronize: true,
          clone: { namespace: "default", name: "regcred" },
        },
      },
    ],
  },
};

const ns = (name: string, uid = "u-1"): JsonObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, uid },
});
const deps = () => fakeDeps({ policies: [SYNC_SECRETS] }).deps;

describe("generate work from an allowed review", () => {
  test("a created trigger: its policy, the rules it matches, the trigger and the request", () => {
    const work = generateWorkFor(reviewOf(ns("team-a")), deps());
    assert.equal(work.length, 1);
    assert.equal(work[0]?.policy, "sync-secrets");
    assert.deepEqual(work[0]?.rules, [{ rule: "copy", synchronize: true, deleteDownstream: false }]);
    assert.deepEqual(work[0]?.trigger, {
      apiVersion: "v1",
      kind: "Namespace",
      namespace: "",
      name: "team-a",
      uid: "u-1",
    });
    assert.equal(work[0]?.operation, "CREATE");
  });

  test("a deleted trigger of a synchronized rule: deleteDownstream", () => {
    const work = generateWorkFor(
      reviewOf(null, {
        operation: "DELETE",
        kind: { group: "", version: "v1", kind: "Namespace" },
        name: "team-a",
        oldObject: ns("team-a"),
      }),
      deps(),
    );
    assert.deepEqual(work[0]?.rules, [{ rule: "copy", synchronize: true, deleteDownstream: true }]);
    assert.equal(work[0]?.trigger.name, "team-a");
  });

  test("no work for a dry run, an unmatched kind, or the generate controller's own writes", () => {
    assert.deepEqual(generateWorkFor(reviewOf(ns("x"), { dryRun: true }), deps()), []);
    assert.deepEqual(
      generateWorkFor(reviewOf({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }), deps()),
      [],
    );
    const controller = { username: "system:serviceaccount:bylaw:bylaw-background-controller", groups: [] };
    assert.deepEqual(generateWorkFor(reviewOf(ns("x"), { userInfo: controller }), deps()), []);
  });

  test("a copy deleted by someone else: its trigger is run again, found by the copy's labels", () => {
    const copy: JsonObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "regcred",
        namespace: "team-a",
        labels: {
          "generate.kyverno.io/policy-name": "sync-secrets",
          "generate.kyverno.io/policy-namespace": "",
          "generate.kyverno.io/rule-name": "copy",
          "generate.kyverno.io/trigger-group": "",
          "generate.kyverno.io/trigger-version": "v1",
          "generate.kyverno.io/trigger-kind": "Namespace",
          "generate.kyverno.io/trigger-namespace": "",
          "generate.kyverno.io/trigger-uid": "u-1",
        },
      },
    };
    const work = generateWorkFor(reviewOf(null, { operation: "DELETE", oldObject: copy }), deps());
    assert.equal(work.length, 1);
    assert.deepEqual(work[0]?.trigger, { apiVersion: "v1", kind: "Namespace", namespace: "", name: "", uid: "u-1" });
  });

  test("an update of the clone source: sourceChanged work for the rule", () => {
    const source: JsonObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "regcred", namespace: "default", uid: "s" },
    };
    const work = generateWorkFor(reviewOf(source, { operation: "UPDATE", oldObject: source }), deps());
    assert.equal(work.length, 1);
    assert.equal(work[0]?.sourceChanged, true);
    assert.equal(work[0]?.trigger.name, "regcred");
  });
});

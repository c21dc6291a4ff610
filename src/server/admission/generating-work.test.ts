/**
 * A GeneratingPolicy's generate work from an allowed review (generate-work.ts): a `cel-generate`
 * request for a trigger its matchConstraints match; a deleted trigger of a synchronized one asks
 * for its downstream to be deleted, and so does an update after which it no longer matches (unless an
 * exception exempts it); an unmatched kind brings none.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { generateWorkFor } from "./generate-work.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const gpol = (synchronize: boolean): JsonObject => ({
  apiVersion: "policies.kyverno.io/v1",
  kind: "GeneratingPolicy",
  metadata: { name: "default-deny" },
  spec: {
    matchConstraints: {
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
    },
    evaluation: { synchronize: { enabled: synchronize } },
    generate: [
      {
        expression:
          'generator.Apply(object.metadata.name, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"), "metadata": dyn({"name": "x"})}])',
      },
    ],
  },
});

const ns = (name: string): JsonObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name, uid: "u-1" } });
const namespaces = { resource: { group: "", version: "v1", resource: "namespaces" } };
const deps = (synchronize = true) => fakeDeps({ policies: [gpol(synchronize)] }).deps;

describe("a GeneratingPolicy's generate work", () => {
  test("a created trigger it matches: one cel-generate request for the policy and trigger, with the sync setting", () => {
    const work = generateWorkFor(reviewOf(ns("team-a"), namespaces), deps());
    assert.equal(work.length, 1);
    assert.equal(work[0]?.requestType, "cel-generate");
    assert.equal(work[0]?.policy, "default-deny");
    assert.deepEqual(
      work[0]?.rules.map((r) => [r.synchronize, r.deleteDownstream]),
      [[true, false]],
    );
    assert.deepEqual(work[0]?.trigger, {
      apiVersion: "v1",
      kind: "Namespace",
      namespace: "",
      name: "team-a",
      uid: "u-1",
    });
  });

  test("a deleted trigger of a synchronized policy: deleteDownstream; not synchronized: no work", () => {
    const deleted = reviewOf(null, {
      ...namespaces,
      operation: "DELETE",
      kind: { group: "", version: "v1", kind: "Namespace" },
      name: "team-a",
      oldObject: ns("team-a"),
    });
    const work = generateWorkFor(deleted, deps());
    assert.deepEqual(
      work.map((w) => [w.requestType, w.rules.map((r) => r.deleteDownstream)]),
      [["cel-generate", [true]]],
    );
    assert.deepEqual(generateWorkFor(deleted, deps(false)), []);
  });

  test("an update its operations leave out: a synchronized policy deletes the downstream (as Kyverno's controller does), another does nothing", () => {
    const updated = reviewOf(ns("team-a"), { ...namespaces, operation: "UPDATE", oldObject: ns("team-a") });
    assert.deepEqual(
      generateWorkFor(updated, deps()).map((w) => [w.requestType, w.rules.map((r) => r.deleteDownstream)]),
      [["cel-generate", [true]]],
    );
    assert.deepEqual(generateWorkFor(updated, deps(false)), []);
    assert.deepEqual(
      generateWorkFor(reviewOf({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }), deps()),
      [],
    );
  });

  test("an update after which its matchConditions no longer hold deletes the downstream; one that still matches generates again; one that never matched does nothing", () => {
    const labelled = gpol(true);
    const spec = labelled["spec"] as JsonObject;
    spec["matchConstraints"] = {
      resourceRules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["namespaces"] },
      ],
    };
    spec["matchConditions"] = [
      { name: "isolated", expression: "object.metadata.?labels.isolate.orValue('') == 'yes'" },
    ];
    const d = fakeDeps({ policies: [labelled] }).deps;
    const withLabel = (name: string, on: boolean): JsonObject => ({
      ...ns(name),
      metadata: { name, uid: "u-1", labels: on ? { isolate: "yes" } : {} },
    });
    const update = (before: boolean, after: boolean) =>
      generateWorkFor(
        reviewOf(withLabel("team-a", after), {
          ...namespaces,
          operation: "UPDATE",
          oldObject: withLabel("team-a", before),
        }),
        d,
      ).map((w) => w.rules.map((r) => r.deleteDownstream));
    assert.deepEqual(update(true, false), [[true]]);
    assert.deepEqual(update(true, true), [[false]]);
    assert.deepEqual(update(false, true), [[false]]);
    assert.deepEqual(update(false, false), []);
  });

  test("a trigger a policies.kyverno.io PolicyException exempts from the policy brings no work; another trigger does", () => {
    const polex: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "PolicyException",
      metadata: { name: "sandbox", namespace: "exceptions" },
      spec: {
        policyRefs: [{ kind: "GeneratingPolicy", name: "default-deny" }],
        matchConditions: [{ name: "sandbox", expression: "object.metadata.name == 'sandbox'" }],
      },
    };
    const withException = fakeDeps({ policies: [gpol(true)], exceptions: [polex] }).deps;
    assert.deepEqual(generateWorkFor(reviewOf(ns("sandbox"), namespaces), withException), []);
    assert.equal(generateWorkFor(reviewOf(ns("team-a"), namespaces), withException).length, 1);
    // Exempt after an update its operations leave out: Kyverno records a skip and keeps the downstream.
    const updated = reviewOf(ns("sandbox"), { ...namespaces, operation: "UPDATE", oldObject: ns("sandbox") });
    assert.deepEqual(generateWorkFor(updated, withException), []);
  });
});

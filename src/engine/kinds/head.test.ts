/** ADR 0005 §1: the webhook-facing head of a policy is read from its own document, whatever its kind. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());
const configMaps = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
};
const validations = [{ expression: "true", message: "never" }];
const rule = {
  name: "r",
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
  validate: { message: "m", pattern: { metadata: {} } },
};

function head(doc: JsonObject): unknown[] {
  const r = engine.compile(doc);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  const p = r.policy;
  return [p.failurePolicy, p.validationActions, p.admission, p.emitWarning];
}

test("a ClusterPolicy's head: webhookConfiguration.failurePolicy first, admission and emitWarning from its spec", () => {
  const spec = { rules: [rule], webhookConfiguration: { failurePolicy: "Ignore" } };
  assert.deepEqual(head({ apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", metadata: { name: "p" }, spec }), [
    "Ignore",
    undefined,
    true,
    false,
  ]);
  const quiet = { rules: [rule], admission: false, background: true, emitWarning: true };
  assert.deepEqual(head({ apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", metadata: { name: "p" }, spec: quiet }), [
    "Fail",
    undefined,
    false,
    true,
  ]);
});

test("a ValidatingPolicy's head: its validationActions (Deny when unset), Warn warns, evaluation.admission", () => {
  const vpol = (spec: JsonObject): JsonObject => ({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "p" },
    spec: { matchConstraints: configMaps, validations, ...spec },
  });
  assert.deepEqual(head(vpol({})), ["Fail", ["Deny"], true, false]);
  assert.deepEqual(
    head(
      vpol({
        failurePolicy: "Ignore",
        validationActions: ["Audit", "Warn"],
        evaluation: { admission: { enabled: false } },
      }),
    ),
    ["Ignore", ["Audit", "Warn"], false, true],
  );
});

test("a ValidatingAdmissionPolicy and a kind Bylaw does not run: their failurePolicy, no validationActions", () => {
  const vap = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "p" },
    spec: { failurePolicy: "Ignore", matchConstraints: configMaps, validations },
  };
  assert.deepEqual(head(vap), ["Ignore", undefined, true, false]);
  const mpol = {
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name: "p" },
    spec: { failurePolicy: "Ignore", matchConstraints: configMaps },
  };
  assert.deepEqual(head(mpol), ["Ignore", undefined, true, false]);
});

test("the head's phases: a kyverno.io policy's are its rules'; a CEL or unsupported kind validates; a GeneratingPolicy generates", () => {
  const phasesOf = (doc: JsonObject): unknown => {
    const r = engine.compile(doc);
    assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
    return r.policy.phases;
  };
  const mutate = {
    name: "m",
    match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
    mutate: { patchStrategicMerge: { metadata: { labels: { a: "b" } } } },
  };
  const cpol = (rules: JsonObject[]): JsonObject => ({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: { rules },
  });
  assert.deepEqual(phasesOf(cpol([rule])), ["validate"]);
  assert.deepEqual(phasesOf(cpol([mutate, rule])), ["validate", "mutate"]);
  const vpol = {
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "p" },
    spec: { matchConstraints: configMaps, validations },
  };
  assert.deepEqual(phasesOf(vpol), ["validate"]);
  const gpol = {
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: "p" },
    spec: { matchConstraints: configMaps, generate: [{ expression: "true" }] },
  };
  assert.deepEqual(phasesOf(gpol), ["generate"]);
  const ivpol = {
    apiVersion: "policies.kyverno.io/v1",
    kind: "ImageValidatingPolicy",
    metadata: { name: "p" },
    spec: { matchConstraints: configMaps, attestors: [], validations: [] },
  };
  // An ImageValidatingPolicy verifies in the validate phase, and pins digests in the mutate phase (verifyImages).
  assert.deepEqual(phasesOf(ivpol), ["validate", "verifyImages"]);
  const map = {
    apiVersion: "admissionregistration.k8s.io/v1beta1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name: "p" },
    spec: { matchConstraints: configMaps },
  };
  assert.deepEqual(phasesOf(map), ["mutate"], "a MutatingAdmissionPolicy mutates");
  // At a version Bylaw does not run, it answers errors in the validate phase.
  assert.deepEqual(phasesOf({ ...map, apiVersion: "admissionregistration.k8s.io/v1" }), ["mutate"], "v1 as v1beta1");
  assert.deepEqual(phasesOf({ ...map, apiVersion: "admissionregistration.k8s.io/v2alpha1" }), ["validate"]);
});

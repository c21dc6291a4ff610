/** ADR 0005: a compiled policy says its own kind and language, and keeps its own document (origin). */
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

const cases: [string, JsonObject, string, string][] = [
  [
    "ClusterPolicy",
    {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "p" },
      spec: {
        rules: [
          {
            name: "r",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            validate: { message: "m", pattern: { metadata: {} } },
          },
        ],
      },
    },
    "kyverno",
    "cluster",
  ],
  [
    "NamespacedValidatingPolicy",
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedValidatingPolicy",
      metadata: { name: "p", namespace: "team" },
      spec: { matchConstraints: configMaps, validations },
    },
    "cel",
    "namespaced",
  ],
  [
    "ValidatingAdmissionPolicy",
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "p" },
      spec: { matchConstraints: configMaps, validations },
    },
    "cel",
    "cluster",
  ],
  [
    "MutatingPolicy",
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name: "p" },
      spec: { matchConstraints: configMaps },
    },
    "mutating",
    "cluster",
  ],
  [
    "ImageValidatingPolicy",
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ImageValidatingPolicy",
      metadata: { name: "p" },
      spec: { matchConstraints: configMaps, attestors: [], validations: [{ expression: "true" }] },
    },
    "image-validating",
    "cluster",
  ],
  [
    "MutatingAdmissionPolicy",
    {
      apiVersion: "admissionregistration.k8s.io/v1beta1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "p" },
      spec: { matchConstraints: configMaps, mutations: [] },
    },
    "mutating",
    "cluster",
  ],
];

for (const [kind, doc, language, scope] of cases)
  test(`a ${kind} compiles as a ${kind}, in ${language}, with its own document`, () => {
    const r = engine.compile(doc);
    assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
    assert.equal(r.policy.kind, kind);
    assert.equal(r.policy.language, language);
    assert.equal(r.policy.origin.kind.kind, kind);
    assert.equal(r.policy.origin.kind.scope, scope);
    assert.equal(r.policy.origin.document, doc);
    assert.equal(r.policy.origin.apiVersion, doc["apiVersion"]);
    // The compiled policy's document is its own: no kyverno-shaped stand-in (issue 34 §1).
    assert.equal(r.policy.document["kind"], kind);
    if (r.policy.language !== "kyverno") assert.equal(r.policy.document, doc);
  });

test("a binding, an exception and a Pod are not policies, each with what to do instead", () => {
  const binding = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: "b" },
    spec: { policyName: "p", validationActions: ["Deny"] },
  };
  const exception = { apiVersion: "kyverno.io/v2", kind: "PolicyException", metadata: { name: "e" }, spec: {} };
  const messages = [binding, exception].map((d) => {
    const r = engine.compile(d);
    return r.ok ? "compiled" : r.problems.map((p) => p.message).join("; ");
  });
  assert.match(messages[0] ?? "", /a ValidatingAdmissionPolicyBinding is not a policy/);
  assert.match(messages[1] ?? "", /a kyverno.io PolicyException is not a policy: load it as an exception/);
  const pod = engine.compile({ apiVersion: "v1", kind: "Pod", metadata: { name: "x" } });
  assert.equal(pod.ok, false);
});

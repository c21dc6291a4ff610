/** Which matchers need the namespace's labels to decide a request: asked of the head, for every kind alike. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import type { EngineRequest } from "../pipeline/types.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import { namespaceLabelsNeeded } from "./namespace-labels-needed.js";

const engine = createEngine(fakePorts());
const production = { matchLabels: { env: "production" } };
const configMaps = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
  namespaceSelector: production,
};

function compiled(doc: JsonObject, bindings?: JsonObject[]): CompiledPolicy {
  const r = engine.compile(doc, bindings !== undefined ? { bindings } : undefined);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

function request(kind: string, apiVersion = "v1"): EngineRequest {
  return {
    resource: { apiVersion, kind, metadata: { name: "x", namespace: "prod-2" } },
    operation: "CREATE",
    namespaceLabels: { "kubernetes.io/metadata.name": "prod-2" },
  };
}

test("an ImageValidatingPolicy and a GeneratingPolicy left to their namespaceSelector need the labels, named as their results are", () => {
  const ivpol = compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ImageValidatingPolicy",
    metadata: { name: "ivp" },
    spec: { matchConstraints: configMaps, attestors: [], validations: [{ expression: "true" }] },
  });
  const gpol = compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: "g" },
    spec: { matchConstraints: configMaps, generate: [{ expression: "true" }] },
  });
  for (const policy of [ivpol, gpol])
    assert.deepEqual(namespaceLabelsNeeded(policy, request("ConfigMap"), "Validation"), {
      scope: "policy",
      need: { name: "", field: "spec.matchConstraints.namespaceSelector" },
    });
  assert.deepEqual(namespaceLabelsNeeded(ivpol, request("Secret"), "Validation"), { scope: "none" });
});

test("a ValidatingAdmissionPolicy asks its binding's matchResources once a binding names it", () => {
  const policy = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "vap" },
    spec: { matchConstraints: configMaps, validations: [{ expression: "true" }] },
  };
  assert.deepEqual(namespaceLabelsNeeded(compiled(policy), request("ConfigMap"), "Validation"), {
    scope: "policy",
    need: { name: "vap", field: "spec.matchConstraints.namespaceSelector" },
  });
  const binding = (matchResources: JsonObject): JsonObject => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: "b" },
    spec: { policyName: "vap", validationActions: ["Deny"], matchResources },
  });
  assert.deepEqual(
    namespaceLabelsNeeded(
      compiled(policy, [binding({ namespaceSelector: production })]),
      request("ConfigMap"),
      "Validation",
    ),
    { scope: "policy", need: { name: "vap", field: "(binding b) spec.matchResources.namespaceSelector" } },
  );
  assert.deepEqual(
    namespaceLabelsNeeded(compiled(policy, [binding({ objectSelector: {} })]), request("ConfigMap"), "Validation"),
    { scope: "none" },
    "the binding selects no namespace labels",
  );
});

test("a ClusterPolicy's rules of the phase that select by namespace labels leave the run; the others stay", () => {
  const policy = compiled({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "cp" },
    spec: {
      rules: [
        {
          name: "prod",
          match: { any: [{ resources: { kinds: ["ConfigMap"], namespaceSelector: production } }] },
          validate: { message: "m", pattern: { metadata: { name: "?*" } } },
        },
        {
          name: "all",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          validate: { message: "m", pattern: { metadata: { name: "?*" } } },
        },
      ],
    },
  });
  const need = namespaceLabelsNeeded(policy, request("ConfigMap"), "Validation");
  assert.equal(need.scope, "rules");
  assert.deepEqual(need.needs, [{ name: "prod", field: "match.any[0].resources.namespaceSelector" }]);
  assert.deepEqual(
    need.rest.map((r) => r.name),
    ["all"],
  );
  assert.equal(need.restRuns, true);
  assert.deepEqual(
    namespaceLabelsNeeded(policy, request("ConfigMap"), "Mutation"),
    { scope: "none" },
    "no mutate rule",
  );
});

test("a kyverno.io rule the request's operation or the policy's namespace rules out needs no labels (the candidate index's gates)", () => {
  const rule = (operations: string[]): JsonObject => ({
    name: "prod",
    match: { any: [{ resources: { kinds: ["ConfigMap"], operations, namespaceSelector: production } }] },
    validate: { message: "m", pattern: { metadata: { name: "?*" } } },
  });
  const policy = (kind: string, metadata: JsonObject, operations: string[]): CompiledPolicy =>
    compiled({ apiVersion: "kyverno.io/v1", kind, metadata, spec: { rules: [rule(operations)] } });
  const onUpdate = policy("ClusterPolicy", { name: "cp" }, ["UPDATE"]);
  assert.deepEqual(namespaceLabelsNeeded(onUpdate, request("ConfigMap"), "Validation"), { scope: "none" });
  assert.equal(
    namespaceLabelsNeeded(onUpdate, { ...request("ConfigMap"), operation: "UPDATE" }, "Validation").scope,
    "rules",
  );
  const elsewhere = policy("Policy", { name: "p", namespace: "prod" }, ["CREATE"]);
  assert.deepEqual(namespaceLabelsNeeded(elsewhere, request("ConfigMap"), "Validation"), { scope: "none" });
  const here = policy("Policy", { name: "p", namespace: "prod-2" }, ["CREATE"]);
  assert.equal(namespaceLabelsNeeded(here, request("ConfigMap"), "Validation").scope, "rules");
});

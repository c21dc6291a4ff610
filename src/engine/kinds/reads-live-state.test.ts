/** The compiled head's `readsLiveState`: computed once at compile time, for every kind alike. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());

function reads(doc: JsonObject): boolean {
  const c = engine.compile(doc);
  assert.ok(c.ok, JSON.stringify(c));
  return c.policy.readsLiveState;
}

function clusterPolicy(rule: JsonObject): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: { background: true, rules: [{ name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, ...rule }] },
  };
}

function validatingPolicy(expression: string, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "vp" },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
        ],
      },
      validations: [{ expression, message: "m" }],
      ...extra,
    },
  };
}

const pattern = { validate: { message: "m", pattern: { metadata: { name: "?*" } } } };
const deny = (key: string): JsonObject => ({
  validate: { message: "m", deny: { conditions: { any: [{ key, operator: "Equals", value: "x" }] } } },
});

test("policies that read only the request, the resource and variables do not read live state", () => {
  assert.equal(reads(clusterPolicy(pattern)), false);
  assert.equal(reads(clusterPolicy(deny("{{ request.object.metadata.name }}"))), false);
  const variable = { context: [{ name: "n", variable: { jmesPath: "request.object.metadata.name" } }], ...pattern };
  assert.equal(reads(clusterPolicy(variable)), false);
  assert.equal(reads(validatingPolicy("object.metadata.name != ''")), false);
  // An empty context list reads nothing.
  assert.equal(reads(clusterPolicy({ context: [], ...pattern })), false);
});

test("context entries, the CEL libraries, parameters, the clock and randomness are live state", () => {
  const configMap = { context: [{ name: "cm", configMap: { name: "c", namespace: "d" } }], ...pattern };
  assert.equal(reads(clusterPolicy(configMap)), true);
  const apiCall = { context: [{ name: "pods", apiCall: { urlPath: "/api/v1/pods", jmesPath: "items" } }], ...pattern };
  assert.equal(reads(clusterPolicy(apiCall)), true);
  assert.equal(reads(clusterPolicy(deny("{{ time_now_utc() }}"))), true);
  assert.equal(reads(clusterPolicy(deny("{{ random('[a-z]{4}') }}"))), true);
  assert.equal(reads(validatingPolicy("resource.Get('v1', 'configmaps', 'd', 'c') != null")), true);
  assert.equal(reads(validatingPolicy("size(resource.List('v1', 'pods', '').items) < 9")), true);
  assert.equal(reads(validatingPolicy("http.Get('http://x/') != null")), true);
  assert.equal(reads(validatingPolicy("globalContext.Get('e', '') != null")), true);
  assert.equal(
    reads(validatingPolicy("object.metadata.name != ''", { variables: [{ name: "t", expression: "time.now()" }] })),
    true,
  );
});

test("a Kubernetes ValidatingAdmissionPolicy with a parameter kind reads live state (its parameters)", () => {
  const vap = (spec: JsonObject): JsonObject => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "vap" },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
        ],
      },
      validations: [{ expression: "true" }],
      ...spec,
    },
  });
  assert.equal(reads(vap({})), false);
  assert.equal(reads(vap({ paramKind: { apiVersion: "v1", kind: "ConfigMap" } })), true);
});

test("a MutatingPolicy's ApplyConfiguration reads the cluster (its OpenAPI types it); a JSON patch does not", () => {
  const mpol = (mutation: JsonObject): JsonObject => ({
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name: "mp" },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
        ],
      },
      mutations: [mutation],
    },
  });
  assert.equal(
    reads(
      mpol({
        patchType: "ApplyConfiguration",
        applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' },
      }),
    ),
    true,
  );
  assert.equal(
    reads(
      mpol({
        patchType: "JSONPatch",
        jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]' },
      }),
    ),
    false,
  );
});

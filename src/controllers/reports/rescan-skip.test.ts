/** When a rescan may skip a resource: same inputs as its report was built from, and no policy of it reads live state. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { namespaceKey, recordable, unchangedSince, type ScanBasis } from "./rescan-skip.js";
import { scanResource } from "./scan.js";

const engine = createEngine(fakePorts());

function compiled(doc: JsonObject): CompiledPolicy {
  const c = engine.compile(doc);
  assert.ok(c.ok, JSON.stringify(c));
  return c.policy;
}

function clusterPolicy(name: string, rule: JsonObject, kinds = ["Pod"]): CompiledPolicy {
  return compiled({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      background: true,
      rules: [{ name: "r", match: { any: [{ resources: { kinds } }] }, ...rule }],
    },
  });
}

const pattern = { validate: { message: "m", pattern: { metadata: { name: "?*" } } } };
function validatingPolicy(name: string, expression: string): CompiledPolicy {
  return compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name },
    spec: {
      autogen: { podControllers: { controllers: [] } },
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
        ],
      },
      validations: [{ expression, message: "m" }],
    },
  });
}

const basis: ScanBasis = {
  resourceVersion: "7",
  namespace: namespaceKey({ namespaceLabels: { a: "1" } }),
  generation: 3,
  reportVersion: "9",
};

test("a resource whose basis is the one its report was built from is skipped", () => {
  assert.equal(unchangedSince(basis, { ...basis }), true);
});

test("a new resourceVersion, namespace labels, policy set or report means a scan", () => {
  assert.equal(unchangedSince(undefined, basis), false);
  assert.equal(unchangedSince(basis, { ...basis, resourceVersion: "8" }), false);
  assert.equal(unchangedSince(basis, { ...basis, namespace: namespaceKey({ namespaceLabels: { a: "2" } }) }), false);
  assert.equal(unchangedSince(basis, { ...basis, generation: 4 }), false);
  // Someone else wrote the report, or deleted it.
  assert.equal(unchangedSince(basis, { ...basis, reportVersion: "10" }), false);
  assert.equal(unchangedSince(basis, { ...basis, reportVersion: undefined }), false);
  // A resource without a resourceVersion cannot be told apart from a changed one.
  assert.equal(unchangedSince({ ...basis, resourceVersion: "" }, { ...basis, resourceVersion: "" }), false);
});

test("a namespace compares by its labels whatever order their keys came in, and by its resourceVersion", () => {
  const key = (labels: Record<string, string>, resourceVersion?: string): string =>
    namespaceKey({
      namespaceLabels: labels,
      ...(resourceVersion !== undefined
        ? { namespaceObject: { apiVersion: "v1", kind: "Namespace", metadata: { name: "n", resourceVersion } } }
        : {}),
    });
  assert.equal(key({ a: "1", b: "2" }), key({ b: "2", a: "1" }));
  assert.notEqual(key({ a: "1" }), key({ a: "1", b: "" }));
  // An annotation changed: same labels, a new resourceVersion; CEL's namespaceObject may read it.
  assert.equal(key({ a: "1" }, "5"), key({ a: "1" }, "5"));
  assert.notEqual(key({ a: "1" }, "5"), key({ a: "1" }, "6"));
});

const pod: JsonObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default", uid: "u", resourceVersion: "1" },
  spec: { containers: [{ name: "c", image: "nginx" }] },
};

function scanned(policies: CompiledPolicy[]): boolean {
  const responses = scanResource({ engine, policies, resource: pod, namespaceLabels: {} });
  return recordable({ policies, responses, namespace: "default" });
}

test("a scan is recorded when no policy that answered for the resource reads live state", () => {
  const live = { context: [{ name: "cm", configMap: { name: "c", namespace: "d" } }], ...pattern };
  // The live policy matches Services only: its context never decides anything about the Pod.
  assert.equal(scanned([clusterPolicy("pattern", pattern), clusterPolicy("svc", live, ["Service"])]), true);
});

test("a scan a live-state policy answered in is never recorded", () => {
  const live = { context: [{ name: "cm", configMap: { name: "c", namespace: "d" } }], ...pattern };
  assert.equal(scanned([clusterPolicy("pattern", pattern), clusterPolicy("cm", live)]), false);
});

test("a CEL policy that reads live state and applies to the namespace prevents the record even without an answer", () => {
  const policy = validatingPolicy("get", "resource.Get('v1', 'configmaps', 'd', 'c') != null");
  assert.equal(recordable({ policies: [policy], responses: [], namespace: "default" }), false);
  assert.equal(
    recordable({ policies: [validatingPolicy("plain", "true")], responses: [], namespace: "default" }),
    true,
  );
});

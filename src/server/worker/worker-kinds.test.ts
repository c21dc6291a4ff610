/**
 * Every policy kind gives the same answer in an evaluation worker as on this thread (ADR 0005:
 * workers rebuild a policy of any kind from what it was compiled from). A ValidatingPolicy served
 * beside a ClusterPolicy once made every worker review an error: its compiled document was the
 * engine's kyverno-shaped stand-in, which does not compile again.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { createEngine, type CompiledPolicy, type EngineRequest, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import type { PolicySnapshot } from "../types.js";
import { createWorkerPool } from "./worker-pool.js";

const engine = createEngine(fakePorts());
const configMaps = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
};
const notForbidden = "object.metadata.?labels.?x.orValue('') != 'forbidden'";

const clusterPolicy: JsonObject = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "cluster-no-forbidden" },
  spec: {
    validationFailureAction: "Enforce",
    rules: [
      {
        name: "check-x",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        validate: { message: "x is forbidden", pattern: { metadata: { "=(labels)": { "=(x)": "!forbidden" } } } },
      },
    ],
  },
};
const namespacedPolicy: JsonObject = {
  ...clusterPolicy,
  kind: "Policy",
  metadata: { name: "team-no-forbidden", namespace: "team" },
};
const validatingPolicy = (kind: string, metadata: JsonObject): JsonObject => ({
  apiVersion: "policies.kyverno.io/v1beta1",
  kind,
  metadata,
  spec: {
    validationActions: ["Deny"],
    matchConstraints: configMaps,
    validations: [{ expression: notForbidden, message: "x is forbidden" }],
  },
});
const admissionPolicy: JsonObject = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "vap" },
  spec: { matchConstraints: configMaps, validations: [{ expression: notForbidden, message: "x is forbidden" }] },
};
const admissionBinding: JsonObject = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: { name: "vap-binding" },
  spec: { policyName: "vap", validationActions: ["Deny"] },
};
const imageValidatingPolicy: JsonObject = {
  apiVersion: "policies.kyverno.io/v1beta1",
  kind: "ImageValidatingPolicy",
  metadata: { name: "check-images" },
  spec: {
    matchConstraints: configMaps,
    attestors: [],
    validations: [{ expression: "object.metadata.labels.x != 'forbidden'" }],
  },
};
const mutatingAdmissionPolicy: JsonObject = {
  apiVersion: "admissionregistration.k8s.io/v2alpha1", // a version Bylaw does not run
  kind: "MutatingAdmissionPolicy",
  metadata: { name: "check-images" },
  spec: { matchConstraints: configMaps, mutations: [] },
};

function compiled(doc: JsonObject, bindings: JsonObject[] = []): CompiledPolicy {
  const r = engine.compile(doc, { bindings });
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

function served(doc: JsonObject): CompiledPolicy {
  const r = compileCelPolicy(doc, engine);
  assert.ok(r.policy !== undefined, JSON.stringify(r.problems));
  return r.policy;
}

const pool = createWorkerPool({ size: 1, now: () => performance.now() / 1000 });
after(() => pool.close());
let generation = 0;

/** Each policy's results from a worker, and the same on this thread, for a ConfigMap labelled x=forbidden and one that is fine. */
async function sameInWorker(policies: readonly CompiledPolicy[]): Promise<void> {
  const snapshot: PolicySnapshot = { policies, generation: ++generation, loadedAt: 0 };
  for (const x of ["forbidden", "fine"]) {
    const resource: JsonObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "team", labels: { x } },
    };
    const request: EngineRequest = { resource, operation: "CREATE", namespaceLabels: {} };
    const outcome = await pool.run({
      snapshot,
      policies,
      request,
      object: resource,
      deadlineAt: performance.now() / 1000 + 20,
    });
    const here = policies.map((p) => engine.validate(p, request).rules);
    assert.deepEqual(
      outcome.done.map((d) => d.response.rules),
      here,
    );
    assert.ok(here.flat().length > 0, "every case gives results");
  }
}

describe("reviews of every policy kind through the evaluation workers", () => {
  test("a ClusterPolicy", () => sameInWorker([compiled(clusterPolicy)]));
  test("a Policy", () => sameInWorker([compiled(namespacedPolicy)]));
  test("a ValidatingPolicy", () => sameInWorker([compiled(validatingPolicy("ValidatingPolicy", { name: "vpol" }))]));
  test("a NamespacedValidatingPolicy, as the server compiles it", () =>
    sameInWorker([served(validatingPolicy("NamespacedValidatingPolicy", { name: "nvpol", namespace: "team" }))]));
  test("a ValidatingAdmissionPolicy with its binding", () =>
    sameInWorker([compiled(admissionPolicy, [admissionBinding])]));
  test("a kind Bylaw does not run: its error, compiled by the engine", async () => {
    const placeholder = compiled(mutatingAdmissionPolicy);
    const resource: JsonObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "team" } };
    assert.equal(
      engine.validate(placeholder, { resource, operation: "CREATE", namespaceLabels: {} }).rules[0]?.status,
      "error",
    );
    await sameInWorker([placeholder]);
  });
  test("an ImageValidatingPolicy, compiled by the engine and as the server serves it", () =>
    sameInWorker([compiled(imageValidatingPolicy), served(imageValidatingPolicy)]));
  test("a ValidatingPolicy and a ClusterPolicy served together", () =>
    sameInWorker([served(validatingPolicy("ValidatingPolicy", { name: "vpol" })), compiled(clusterPolicy)]));
});

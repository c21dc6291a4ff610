/** ADR 0005 §2: validate/mutate/generate dispatch by the policy's language; a kind outside a phase answers as the pipeline did. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { generatePolicy } from "../pipeline/generate-policy.js";
import { mutatePolicy } from "../pipeline/mutate-policy.js";
import { PreparedRequest } from "../pipeline/prepared-request.js";
import type { EngineRequest } from "../pipeline/types.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { evaluationOf } from "./evaluation.js";
import { KYVERNO_EVALUATION } from "./kyverno/evaluate.js";
import { UNSUPPORTED_EVALUATION } from "./unsupported/evaluate.js";
import { CEL_EVALUATION } from "./validating/evaluate.js";
import { IMAGE_VALIDATING_EVALUATION } from "./image-validating/evaluate.js";
import { MUTATING_EVALUATION } from "./mutating/evaluate.js";

const engine = createEngine(fakePorts());
const configMaps = {
  resourceRules: [
    { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "DELETE"], resources: ["configmaps"] },
  ],
};

function compiled(doc: JsonObject) {
  const r = engine.compile(doc);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

const validating = compiled({
  apiVersion: "policies.kyverno.io/v1",
  kind: "ValidatingPolicy",
  metadata: { name: "vp" },
  spec: { matchConstraints: configMaps, validations: [{ expression: "false", message: "never" }] },
});
// A MutatingAdmissionPolicy at v1, which Kyverno 1.19's CLI does not read: Bylaw does not run it.
const unsupported = compiled({
  apiVersion: "admissionregistration.k8s.io/v2alpha1",
  kind: "MutatingAdmissionPolicy",
  metadata: { name: "iv" },
  spec: { matchConstraints: configMaps, mutations: [] },
});
const imageValidating = compiled({
  apiVersion: "policies.kyverno.io/v1",
  kind: "ImageValidatingPolicy",
  metadata: { name: "ivp" },
  spec: { matchConstraints: configMaps, attestors: [], validations: [{ expression: "true" }] },
});
const mutating = compiled({
  apiVersion: "policies.kyverno.io/v1",
  kind: "MutatingPolicy",
  metadata: { name: "mp" },
  spec: { matchConstraints: configMaps },
});
const kyverno = compiled({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "cp" },
  spec: {
    rules: [
      {
        name: "r",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        validate: { message: "m", pattern: { metadata: { name: "?*" } } },
      },
    ],
  },
});

const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
const requests: EngineRequest[] = [
  { resource: cm, operation: "CREATE", namespaceLabels: {} },
  { resource: {}, oldResource: cm, operation: "DELETE", namespaceLabels: {} },
];

test("each language has its family's evaluation", () => {
  assert.equal(evaluationOf(kyverno), KYVERNO_EVALUATION);
  assert.equal(evaluationOf(validating), CEL_EVALUATION);
  assert.equal(evaluationOf(unsupported), UNSUPPORTED_EVALUATION);
  assert.equal(evaluationOf(mutating), MUTATING_EVALUATION);
  assert.equal(evaluationOf(imageValidating), IMAGE_VALIDATING_EVALUATION);
});

test("a CEL or unsupported kind asked to mutate or generate answers as the pipeline does: no results, the resource unchanged", () => {
  for (const policy of [validating, unsupported])
    for (const request of requests) {
      const env = engine.env;
      assert.deepEqual(engine.mutate(policy, request), mutatePolicy(policy, new PreparedRequest(request), env));
      assert.deepEqual(
        engine.generate(policy, request, { get: () => undefined, list: () => [] } as never),
        generatePolicy(policy, new PreparedRequest(request), env, { get: () => undefined, list: () => [] } as never),
      );
    }
});

test("validate runs each family: the CEL programs, and the unsupported kind's error", () => {
  const create = requests[0] as EngineRequest;
  assert.deepEqual(
    engine.validate(validating, create).rules.map((r) => [r.rule, r.status, r.message]),
    [["", "fail", "never"]],
  );
  assert.deepEqual(
    engine.validate(unsupported, create).rules.map((r) => [r.rule, r.status, r.message]),
    [
      [
        "",
        "error",
        "admissionregistration.k8s.io/v2alpha1 MutatingAdmissionPolicy policies are not supported by Bylaw yet; policy iv was not evaluated",
      ],
    ],
  );
  assert.deepEqual(
    engine.validate(kyverno, create).rules.map((r) => [r.rule, r.status]),
    [["r", "pass"]],
  );
});

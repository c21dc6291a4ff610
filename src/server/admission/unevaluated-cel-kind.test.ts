/** ImageValidatingPolicy (and Namespaced) through the validating webhook: served without evaluation, answered as an error under their failurePolicy. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { pod } from "../../../test/support/builders.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import { handleValidate, type HandlerResult } from "./index.js";
import { fakeDeps, reviewOf, type FakeSetup } from "../../../test/support/fake-admission-deps.js";

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
};
function ivpol(name: string, spec: JsonObject, kind = "ImageValidatingPolicy", namespace?: string): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1beta1",
    kind,
    metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
    spec: {
      matchConstraints: podRules,
      validationActions: ["Deny"],
      attestors: [],
      ...spec,
    },
  };
}

function run(setup: FakeSetup, body: JsonObject, mode?: "fail" | "ignore") {
  const fake = fakeDeps({
    ...setup,
    compile: (doc, engine) => {
      const c = compileCelPolicy(doc, engine);
      if (c.policy === undefined) throw new Error(JSON.stringify(c.problems));
      return c.policy;
    },
  });
  const r: HandlerResult = handleValidate(body, fake.deps, mode);
  assert.equal(r.status, 200);
  if (r.status !== 200) throw new Error("unreachable");
  return { ...fake, response: r.body.response };
}

const nginx = pod({ name: "nginx", labels: { app: "web" } });

describe("validate webhook: a policies.kyverno.io kind Bylaw does not evaluate", () => {
  test("failurePolicy Fail: a matching request is denied, naming the policy and what is missing", () => {
    const { response } = run({ policies: [ivpol("add-labels", { failurePolicy: "Fail" })] }, reviewOf(nginx), "fail");
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /^Policy add-labels error: ImageValidatingPolicy add-labels: Bylaw does not evaluate ImageValidatingPolicy yet \(it cannot verify images/,
    );
  });

  test("failurePolicy Ignore: allowed, with the error as a warning", () => {
    const { response } = run(
      { policies: [ivpol("add-labels", { failurePolicy: "Ignore" })] },
      reviewOf(nginx),
      "ignore",
    );
    assert.equal(response.allowed, true);
    assert.equal(response.warnings?.length, 1);
    assert.match(
      response.warnings?.[0] ?? "",
      /^Policy add-labels error: ImageValidatingPolicy add-labels: Bylaw does not evaluate ImageValidatingPolicy yet/,
    );
  });

  test("one on statefulsets/scale (stored before Bylaw could refuse it) answers kubectl scale's Scale as an error, never a silent pass", () => {
    const scaleRules = {
      resourceRules: [
        { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["statefulsets/scale"] },
      ],
    };
    const scale: JsonObject = {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "s", namespace: "default" },
      spec: { replicas: 5 },
    };
    const review = reviewOf(scale, {
      operation: "UPDATE",
      oldObject: { ...scale, spec: { replicas: 1 } },
      kind: { group: "autoscaling", version: "v1", kind: "Scale" },
      resource: { group: "apps", version: "v1", resource: "statefulsets" },
      subResource: "scale",
    });
    const { response } = run(
      { policies: [ivpol("scale-down", { failurePolicy: "Fail", matchConstraints: scaleRules })] },
      review,
      "fail",
    );
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /ImageValidatingPolicy scale-down: Bylaw does not evaluate ImageValidatingPolicy yet/,
    );
  });

  test("a request its matchConstraints do not match is not touched", () => {
    const cm: JsonObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
    const review = reviewOf(cm, {
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
    });
    const { response, results } = run({ policies: [ivpol("add-labels", {})] }, review, "fail");
    assert.equal(response.allowed, true);
    assert.equal(response.warnings, undefined);
    assert.equal(results.length, 0);
  });

  test("ImageValidatingPolicy: the same, with its own reason", () => {
    const ivpol: JsonObject = {
      apiVersion: "policies.kyverno.io/v1beta1",
      kind: "ImageValidatingPolicy",
      metadata: { name: "signed" },
      spec: { matchConstraints: podRules, validationActions: ["Deny"], attestors: [] },
    };
    const { response } = run({ policies: [ivpol] }, reviewOf(nginx), "fail");
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /ImageValidatingPolicy signed: Bylaw does not evaluate ImageValidatingPolicy yet \(it cannot verify images/,
    );
  });

  test("a NamespacedImageValidatingPolicy answers only in its own namespace", () => {
    const policies = [ivpol("add-labels", {}, "NamespacedImageValidatingPolicy", "team-a")];
    const inA = reviewOf(pod({ name: "p", namespace: "team-a" }), { namespace: "team-a" });
    const inB = reviewOf(pod({ name: "p", namespace: "team-b" }), { namespace: "team-b" });
    assert.equal(run({ policies }, inA, "fail").response.allowed, false);
    assert.equal(run({ policies }, inB, "fail").response.allowed, true);
  });
});

/** ImageValidatingPolicy (and Namespaced) through the validating webhook: evaluated, answered by its validationActions with Kyverno's texts. */
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
      validations: [],
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

describe("validate webhook: an ImageValidatingPolicy (and Namespaced) is evaluated", () => {
  test("Deny: a Pod whose image has no digest (verifyDigest, the default) is denied with Kyverno's message", () => {
    const { response } = run({ policies: [ivpol("signed", { failurePolicy: "Fail" })] }, reviewOf(nginx), "fail");
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, "Policy signed failed: image nginx:1.27 does not have a digest");
  });

  test("Warn: allowed, with the failure as a warning; Audit: allowed, nothing said", () => {
    const warn = run(
      { policies: [ivpol("signed", { failurePolicy: "Ignore", validationActions: ["Warn"] })] },
      reviewOf(nginx),
      "ignore",
    ).response;
    assert.equal(warn.allowed, true);
    assert.deepEqual(warn.warnings, ["Policy signed failed: image nginx:1.27 does not have a digest"]);
    const audit = run(
      { policies: [ivpol("signed", { validationActions: ["Audit"] })] },
      reviewOf(nginx),
      "fail",
    ).response;
    assert.equal(audit.allowed, true);
    assert.equal(audit.warnings, undefined);
  });

  test("one on statefulsets/scale reads kubectl scale's Scale: its validation decides", () => {
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
    const spec = {
      failurePolicy: "Fail",
      matchConstraints: scaleRules,
      validations: [{ expression: "object.spec.replicas <= 3", message: "at most 3 replicas" }],
    };
    const { response } = run({ policies: [ivpol("scale-down", spec)] }, review, "fail");
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, "Policy scale-down failed: at most 3 replicas");
  });

  test("a request its matchConstraints do not match is not touched", () => {
    const cm: JsonObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
    const review = reviewOf(cm, {
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
    });
    const { response, results } = run({ policies: [ivpol("signed", {})] }, review, "fail");
    assert.equal(response.allowed, true);
    assert.equal(response.warnings, undefined);
    assert.equal(results.length, 0);
  });

  test("an image matchImageReferences do not select is not looked at", () => {
    const spec = { matchImageReferences: [{ glob: "ghcr.io/acme/*" }] };
    const { response } = run({ policies: [ivpol("signed", spec)] }, reviewOf(nginx), "fail");
    assert.equal(response.allowed, true);
  });

  test("a NamespacedImageValidatingPolicy answers only in its own namespace", () => {
    const policies = [ivpol("signed", {}, "NamespacedImageValidatingPolicy", "team-a")];
    const inA = reviewOf(pod({ name: "p", namespace: "team-a" }), { namespace: "team-a" });
    const inB = reviewOf(pod({ name: "p", namespace: "team-b" }), { namespace: "team-b" });
    assert.equal(run({ policies }, inA, "fail").response.allowed, false);
    assert.equal(run({ policies }, inB, "fail").response.allowed, true);
  });
});

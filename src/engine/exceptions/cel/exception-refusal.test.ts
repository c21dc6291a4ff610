/**
 * A policies.kyverno.io PolicyException whose matchCondition is not of type bool exactly (dyn
 * included) fails to compile the policies it names, as Kyverno compiles an exception with each
 * policy it names (pkg/cel/policies/<kind>/compiler, pkg/image/verification/evaluator): those
 * policies answer an error naming the exception's field, with "output is expected to be of type
 * bool"; a policy it does not name runs as before. Checked beside kyverno apply v1.19.0 (whose CLI
 * aborts the run with that text for a ValidatingPolicy, MutatingPolicy, GeneratingPolicy and
 * DeletingPolicy, and answers the error row for an ImageValidatingPolicy).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { ok } from "../../index.js";
import { createEngine } from "../../engine.js";
import type { AnyCompiledException } from "./index.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { pod } from "../../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
};
const resource = pod({ name: "web", containers: [{ name: "c", image: "nginx:1.25" }] });
const REASON = "compilation failed: output is expected to be of type bool";

function compiled(kind: string, name: string, spec: JsonObject): CompiledPolicy {
  const r = engine.compile({ apiVersion: "policies.kyverno.io/v1", kind, metadata: { name }, spec });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function polex(ref: { kind: string; name: string }, expression: string): AnyCompiledException {
  const r = engine.compileException({
    apiVersion: "policies.kyverno.io/v1",
    kind: "PolicyException",
    metadata: { name: "ex", namespace: "default" },
    spec: { policyRefs: [ref], matchConditions: [{ name: "c", expression }] },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.exception;
}

function validate(policy: CompiledPolicy, exceptions: AnyCompiledException[]): [string, string][] {
  const r = engine.validate(policy, { resource, operation: "CREATE", namespaceLabels: {}, exceptions });
  return r.rules.map((x) => [x.status, x.message]);
}

describe("a PolicyException whose matchCondition is not bool exactly fails the policies it names", () => {
  test("ValidatingPolicy", () => {
    const vp = compiled("ValidatingPolicy", "vp", {
      matchConstraints: podRules,
      validations: [{ expression: "false" }],
    });
    const ref = { kind: "ValidatingPolicy", name: "vp" };
    for (const expression of ["object.spec.flag", "1"])
      assert.deepEqual(validate(vp, [polex(ref, expression)]), [
        ["error", `policy vp: spec.matchConditions[0].expression: ${REASON}`],
      ]);
    assert.deepEqual(validate(vp, [polex(ref, "has(object.spec.flag) == false")]), [
      ["skip", "rule is skipped due to policy exception: default/ex"],
    ]);
    // An exception naming another policy is not compiled with this one.
    assert.deepEqual(validate(vp, [polex({ ...ref, name: "other" }, "object.spec.flag")])[0]?.[0], "fail");
  });

  test("ImageValidatingPolicy", () => {
    const ivp = compiled("ImageValidatingPolicy", "ivp", {
      matchConstraints: podRules,
      matchImageReferences: [{ glob: "nomatch.example/*" }],
      attestors: [{ name: "notary", notary: { certs: { value: "abc" } } }],
      validationConfigurations: { verifyDigest: false, mutateDigest: false, required: false },
      validations: [{ expression: "true" }],
    });
    const ref = { kind: "ImageValidatingPolicy", name: "ivp" };
    assert.deepEqual(validate(ivp, [polex(ref, "object.spec.flag")]), [
      [
        "error",
        'failed to compile policy: spec.matchConditions[0].expression: Invalid value: "object.spec.flag": output is expected to be of type bool',
      ],
    ]);
    assert.deepEqual(validate(ivp, [polex(ref, "!has(object.spec.flag)")]), [
      ["skip", "rule is skipped due to policy exception: default/ex"],
    ]);
  });

  test("MutatingPolicy, GeneratingPolicy and DeletingPolicy", () => {
    const mp = compiled("MutatingPolicy", "mp", {
      matchConstraints: podRules,
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' },
        },
      ],
    });
    const mutated = engine.mutate(mp, {
      resource,
      operation: "CREATE",
      namespaceLabels: {},
      exceptions: [polex({ kind: "MutatingPolicy", name: "mp" }, "object.spec.flag")],
    });
    assert.deepEqual(
      mutated.rules.map((r) => [r.status, r.message]),
      [["error", `failed to evaluate policy: MutatingPolicy mp: spec.matchConditions[0].expression: ${REASON}`]],
    );
    assert.deepEqual(mutated.patchedResource ?? resource, resource);

    const gp = compiled("GeneratingPolicy", "gp", {
      matchConstraints: podRules,
      generate: [{ expression: 'generator.Apply("default", [])' }],
    });
    const none = { get: () => ok(undefined), list: () => ok([]) };
    const generated = engine.generate(
      gp,
      {
        resource,
        operation: "CREATE",
        namespaceLabels: {},
        exceptions: [polex({ kind: "GeneratingPolicy", name: "gp" }, "object.spec.flag")],
      },
      none,
    );
    assert.deepEqual(
      generated.rules.map((r) => [r.status, r.message]),
      [["error", `policy gp: spec.matchConditions[0].expression: ${REASON}`]],
    );

    const dp = compiled("DeletingPolicy", "dp", {
      schedule: "*/1 * * * *",
      matchConstraints: podRules,
      conditions: [{ name: "c", expression: "true" }],
    });
    const [status, message] =
      validate(dp, [polex({ kind: "DeletingPolicy", name: "dp" }, "object.spec.flag")])[0] ?? [];
    assert.equal(status, "error");
    assert.match(
      message ?? "",
      /DeletingPolicy dp: spec\.matchConditions\[0\]\.expression: compilation failed: output is expected to be of type bool$/,
    );
  });
});

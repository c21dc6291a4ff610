/**
 * ValidatingPolicy and ValidatingAdmissionPolicy run their own body (ADR 0005 step 3): programs, not
 * kyverno.io rules named "". What the pipeline used to do for them (match per program, the nesting
 * error, the compile error, the failure action, results named as Kyverno names them) is the body's.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import { compileException } from "../../exceptions/index.js";
import { compiledAction, type CompiledPolicy } from "../../policy/compiled-policy.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());

const podsRule = { apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE", "UPDATE"] };

const vpol: JsonObject = {
  apiVersion: "policies.kyverno.io/v1",
  kind: "ValidatingPolicy",
  metadata: { name: "no-host-network" },
  spec: {
    validationActions: ["Deny"],
    matchConstraints: { resourceRules: [podsRule] },
    validations: [
      { expression: "!has(object.spec.hostNetwork) || !object.spec.hostNetwork", message: "no host network" },
    ],
  },
};

const vap: JsonObject = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "vap-host-network" },
  spec: {
    matchConstraints: { resourceRules: [podsRule] },
    validations: [
      { expression: "!has(object.spec.hostNetwork) || !object.spec.hostNetwork", message: "no host network" },
    ],
  },
};

function compiled(doc: JsonObject): CompiledPolicy {
  const r = engine.compile(doc);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

function pod(spec: JsonObject = { containers: [] }): JsonObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default" }, spec };
}

function deployment(podSpec: JsonObject): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: { selector: {}, template: { metadata: {}, spec: podSpec } },
  };
}

function rows(policy: CompiledPolicy, resource: JsonObject, extra: object = {}): [string, string, string][] {
  return engine
    .validate(policy, { resource, operation: "CREATE", namespaceLabels: {}, ...extra })
    .rules.map((r) => [r.rule, r.status, r.message ?? ""]);
}

function nest(depth: number): JsonObject {
  let v: JsonObject = { leaf: true };
  for (let i = 0; i < depth; i++) v = { n: v };
  return v;
}

describe("the CEL validating body", () => {
  test('a ValidatingPolicy has no rules: one program for its spec, one per autogen copy, each naming its results ""', () => {
    const p = compiled(vpol);
    assert.equal("rules" in p, false);
    assert.equal(p.language, "cel");
    if (p.language !== "cel") return;
    assert.deepEqual(
      p.validating.programs.map((x) => [x.resultName, x.program.kind, x.failure]),
      [
        ["", "validating-policy", undefined],
        ["", "validating-policy", undefined],
        ["", "validating-policy", undefined],
      ],
    );
    assert.equal(compiledAction(p), "Enforce");
    // The Pod reaches the policy's own program, a Deployment its autogen copy: one result each.
    assert.deepEqual(rows(p, pod({ hostNetwork: true, containers: [] })), [["", "fail", "no host network"]]);
    assert.deepEqual(rows(p, deployment({ hostNetwork: true, containers: [] })), [["", "fail", "no host network"]]);
    assert.deepEqual(rows(p, pod()), [["", "pass", "success"]]);
    // A kind no program matches: no result.
    assert.deepEqual(
      rows(p, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } }),
      [],
    );
  });

  test("a ValidatingAdmissionPolicy's one program names its results after the policy", () => {
    const p = compiled(vap);
    assert.equal("rules" in p, false);
    assert.deepEqual(rows(p, pod({ hostNetwork: true, containers: [] })), [
      ["vap-host-network", "fail", "no host network"],
    ]);
  });

  test("a resource nested too deeply is an error under the program's result name, never a pass", () => {
    for (const [doc, name] of [
      [vpol, ""],
      [vap, "vap-host-network"],
    ] as const) {
      const got = rows(compiled(doc), pod({ containers: [], deep: nest(1200) }));
      assert.deepEqual(
        got.map(([rule, status]) => [rule, status]),
        [[name, "error"]],
      );
      assert.match(got[0]?.[2] ?? "", /nested deeper than 1000 levels/);
    }
  });

  test("an expression that does not compile is an error for every matched resource, naming the field", () => {
    const broken = {
      ...vpol,
      spec: { ...(vpol["spec"] as JsonObject), validations: [{ expression: "object.spec.(" }] },
    };
    const p = compiled(broken);
    const got = rows(p, pod());
    assert.deepEqual(
      got.map(([rule, status]) => [rule, status]),
      [["", "error"]],
    );
    assert.match(got[0]?.[2] ?? "", /spec\.validations\[0\]\.expression/);
  });

  test("a kyverno.io PolicyException names ClusterPolicy rules: it never skips a CEL kind's program", () => {
    for (const [doc, name] of [
      [vpol, ""],
      [vap, "vap-host-network"],
    ] as const) {
      const p = compiled(doc);
      const ex = compileException({
        apiVersion: "kyverno.io/v2",
        kind: "PolicyException",
        metadata: { name: "e", namespace: "default" },
        spec: {
          exceptions: [{ policyName: p.name, ruleNames: [name] }],
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
        },
      });
      assert.ok(ex.ok);
      assert.deepEqual(
        rows(p, pod({ hostNetwork: true, containers: [] }), { exceptions: [ex.exception] }).map(([r, s]) => [r, s]),
        [[name, "fail"]],
      );
    }
  });

  test("validationActions without Deny make a failing result Audit", () => {
    const audit = compiled({ ...vpol, spec: { ...(vpol["spec"] as JsonObject), validationActions: ["Audit"] } });
    assert.equal(compiledAction(audit), "Audit");
  });
});

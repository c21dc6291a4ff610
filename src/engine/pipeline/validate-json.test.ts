/** engine.validateJson: JSON-mode ValidatingPolicies on payloads that are not Kubernetes objects, and nothing else. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());
const plan = {
  format_version: "1.2",
  resource_changes: [
    { type: "aws_s3_bucket", change: { after: { acl: "public-read" } } },
    { type: "aws_instance", change: { after: {} } },
  ],
};

function compile(doc: JsonObject) {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}
const jsonPolicy = (spec: JsonObject) =>
  compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "no-public-buckets" },
    spec: { evaluation: { mode: "JSON" }, ...spec },
  });
const noPublic = {
  variables: [{ name: "buckets", expression: "object.resource_changes.filter(r, r.type == 'aws_s3_bucket')" }],
  validations: [
    {
      expression: "variables.buckets.all(b, b.change.after.?acl.orValue('private') == 'private')",
      messageExpression: "string(size(variables.buckets)) + ' bucket(s) must be private'",
    },
  ],
};

function run(policy: ReturnType<typeof compile>, payload: JsonObject, extra: object = {}): string[][] {
  return engine.validateJson(policy, { payload, ...extra }).rules.map((r) => [r.rule, r.status, r.message]);
}

describe("engine.validateJson", () => {
  test("object is the payload; variables and messageExpression work; a passing payload is 'success'", () => {
    assert.deepEqual(run(jsonPolicy(noPublic), plan), [["", "fail", "1 bucket(s) must be private"]]);
    assert.deepEqual(run(jsonPolicy(noPublic), { resource_changes: [] }), [["", "pass", "success"]]);
  });

  test("oldObject and namespaceObject are null; matchConditions not met is a skip", () => {
    assert.deepEqual(
      run(jsonPolicy({ validations: [{ expression: "oldObject == null && namespaceObject == null" }] }), plan),
      [["", "pass", "success"]],
    );
    assert.deepEqual(
      run(
        jsonPolicy({
          ...noPublic,
          matchConditions: [{ name: "terraform", expression: "has(object.terraform_version)" }],
        }),
        plan,
      ),
      [["", "skip", "skip"]],
    );
  });

  test("a Kubernetes-mode ValidatingPolicy and a ClusterPolicy never run on a payload", () => {
    const k8s = compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "k" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }],
        },
        validations: [{ expression: "false" }],
      },
    });
    const classic = compile({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "c" },
      spec: {
        background: false,
        rules: [{ name: "r", match: { any: [{ resources: { kinds: ["*"] } }] }, validate: { deny: {} } }],
      },
    });
    assert.deepEqual(run(k8s, plan), []);
    assert.deepEqual(run(classic, plan), []);
  });

  test("a policies.kyverno.io PolicyException naming the policy applies to payloads too", () => {
    const ex = engine.compileException({
      apiVersion: "policies.kyverno.io/v1",
      kind: "PolicyException",
      metadata: { name: "sandbox" },
      spec: {
        policyRefs: [{ kind: "ValidatingPolicy", name: "no-public-buckets" }],
        matchConditions: [{ name: "sandbox", expression: "object.?workspace.orValue('') == 'sandbox'" }],
      },
    });
    assert.ok(ex.ok);
    if (!ex.ok) return;
    assert.deepEqual(run(jsonPolicy(noPublic), { ...plan, workspace: "sandbox" }, { exceptions: [ex.exception] }), [
      ["exception", "skip", "rule is skipped due to policy exception: sandbox"],
    ]);
    assert.deepEqual(run(jsonPolicy(noPublic), plan, { exceptions: [ex.exception] })[0]?.[1], "fail");
  });

  test("a JSON-mode policy whose expression does not compile answers an error naming the field", () => {
    const [row] = run(jsonPolicy({ validations: [{ expression: "object.x ==" }] }), plan);
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /spec\.validations\[0\]\.expression: compilation failed/);
  });
});

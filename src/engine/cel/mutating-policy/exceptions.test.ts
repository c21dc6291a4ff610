/**
 * policies.kyverno.io PolicyExceptions on a MutatingPolicy, as Kyverno's mpol engine applies them:
 * a full exception leaves the resource unpatched and answers skip (or pass) with rule "exception";
 * a partial one fills `exceptions.allowedValues` for the mutations; an exception naming another
 * policy does nothing; an exception whose condition errors makes the policy's result an error.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import type { AnyCompiledException } from "../../exceptions/cel/index.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { pod } from "../../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
};
const addTeam = {
  patchType: "ApplyConfiguration",
  applyConfiguration: {
    expression:
      'Object{metadata: Object.metadata{labels: {"team": exceptions.allowedValues.size() > 0 ? exceptions.allowedValues[0] : "a"}}}',
  },
};

function mp(): CompiledPolicy {
  const r = engine.compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name: "mp" },
    spec: { matchConstraints: podRules, mutations: [addTeam] },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function polex(name: string, spec: JsonObject, refName = "mp"): AnyCompiledException {
  const r = engine.compileException({
    apiVersion: "policies.kyverno.io/v1",
    kind: "PolicyException",
    metadata: { name, namespace: "exceptions" },
    spec: { policyRefs: [{ kind: "MutatingPolicy", name: refName }], ...spec },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.exception;
}

const forName = (n: string) => [{ name: "named", expression: `object.metadata.name == '${n}'` }];

function run(resource: JsonObject, exceptions: readonly AnyCompiledException[]) {
  const r = engine.mutate(mp(), { resource, operation: "CREATE", namespaceLabels: {}, exceptions });
  const labels = ((r.patchedResource ?? resource)["metadata"] as JsonObject)["labels"];
  return { rules: r.rules.map((x) => [x.rule, x.status, x.message, x.exceptions]), labels };
}

describe("MutatingPolicy with policies.kyverno.io PolicyExceptions", () => {
  test("a full exception leaves the excepted resource unpatched (skip, rule exception); others are patched", () => {
    const exceptions = [polex("tool", { matchConditions: forName("tool") })];
    const excepted = run(pod({ name: "tool" }), exceptions);
    assert.deepEqual(excepted.rules, [
      ["exception", "skip", "rule is skipped due to policy exception: exceptions/tool", ["exceptions/tool"]],
    ]);
    assert.equal(excepted.labels, undefined);
    const other = run(pod({ name: "web" }), exceptions);
    assert.deepEqual(other.rules, [["", "pass", "success", undefined]]);
    assert.deepEqual(other.labels, { team: "a" });
  });

  test("reportResult pass answers pass; an exception naming another policy does nothing", () => {
    const pass = run(pod({ name: "tool" }), [
      polex("tool", { matchConditions: forName("tool"), reportResult: "pass" }),
    ]);
    assert.deepEqual(pass.rules[0]?.slice(0, 2), ["exception", "pass"]);
    const elsewhere = run(pod({ name: "tool" }), [polex("tool", { matchConditions: forName("tool") }, "other")]);
    assert.deepEqual(elsewhere.labels, { team: "a" });
  });

  test("a partial exception's allowedValues reach the mutation through `exceptions`", () => {
    const r = run(pod({ name: "tool" }), [polex("vals", { matchConditions: forName("tool"), allowedValues: ["b"] })]);
    assert.deepEqual(r.rules, [["", "pass", "success", undefined]]);
    assert.deepEqual(r.labels, { team: "b" });
  });

  test("an exception whose condition errors makes the result an error, the resource unpatched", () => {
    const r = run(pod({ name: "tool" }), [
      polex("broken", { matchConditions: [{ name: "bad", expression: "object.metadata.nosuch == 'x'" }] }),
    ]);
    assert.equal(r.rules[0]?.[1], "error");
    assert.match(String(r.rules[0]?.[2]), /PolicyException exceptions\/broken/);
    assert.equal(r.labels, undefined);
  });
});

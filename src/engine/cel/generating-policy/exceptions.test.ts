/**
 * policies.kyverno.io PolicyExceptions on a GeneratingPolicy: a full exception answers skip (or
 * pass) with rule "exception" and generates nothing; an exception naming another policy does
 * nothing; an exception whose condition errors makes the result an error, nothing generated.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import type { AnyCompiledException } from "../../exceptions/cel/index.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { ok } from "../../api/result.js";

const engine = createEngine(fakePorts());
const none = { get: () => ok(undefined), list: () => ok([]) };

function gp(): CompiledPolicy {
  const r = engine.compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: "gp" },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
      },
      generate: [
        {
          expression:
            'generator.Apply(object.metadata.name, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"), "metadata": dyn({"name": "c"})}])',
        },
      ],
    },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function polex(name: string, spec: JsonObject, ref = { kind: "GeneratingPolicy", name: "gp" }): AnyCompiledException {
  const r = engine.compileException({
    apiVersion: "policies.kyverno.io/v1",
    kind: "PolicyException",
    metadata: { name, namespace: "exceptions" },
    spec: { policyRefs: [ref], ...spec },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.exception;
}

const forName = (n: string) => [{ name: "named", expression: `object.metadata.name == '${n}'` }];

function run(name: string, exceptions: readonly AnyCompiledException[]) {
  const resource = { apiVersion: "v1", kind: "Namespace", metadata: { name, uid: "u" } };
  const r = engine.generate(gp(), { resource, operation: "CREATE", namespaceLabels: {}, exceptions }, none);
  return r.rules.map((x) => ({ rule: x.rule, status: x.status, message: x.message, generated: x.generated?.length }));
}

describe("GeneratingPolicy with policies.kyverno.io PolicyExceptions", () => {
  test("a full exception generates nothing for the excepted trigger (skip, rule exception); others generate", () => {
    const exceptions = [polex("sandbox", { matchConditions: forName("sandbox") })];
    assert.deepEqual(run("sandbox", exceptions), [
      {
        rule: "exception",
        status: "skip",
        message: "rule is skipped due to policy exception: exceptions/sandbox",
        generated: undefined,
      },
    ]);
    assert.deepEqual(
      run("team-a", exceptions).map((r) => [r.status, r.generated]),
      [["pass", 1]],
    );
  });

  test("reportResult pass answers pass; an exception naming another policy (or kind) does nothing", () => {
    const pass = run("sandbox", [polex("sandbox", { matchConditions: forName("sandbox"), reportResult: "pass" })]);
    assert.deepEqual(
      pass.map((r) => [r.rule, r.status, r.generated]),
      [["exception", "pass", undefined]],
    );
    const other = [polex("x", { matchConditions: forName("sandbox") }, { kind: "ValidatingPolicy", name: "gp" })];
    assert.deepEqual(
      run("sandbox", other).map((r) => [r.status, r.generated]),
      [["pass", 1]],
    );
  });

  test("an exception whose condition errors makes the result an error naming it; nothing generated", () => {
    const [r] = run("sandbox", [
      polex("broken", { matchConditions: [{ name: "bad", expression: "object.metadata.nosuch == 'x'" }] }),
    ]);
    assert.equal(r?.status, "error");
    assert.match(r?.message ?? "", /PolicyException exceptions\/broken/);
    assert.equal(r?.generated, undefined);
  });
});

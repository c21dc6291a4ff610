/** The scope-free pass of fixed pattern rules: which rules get one, and that it only ever says what the full way says. */
import { kyvernoCompiledRules } from "../policy/compiled-policy.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineRequest } from "../pipeline/types.js";
import { compileException } from "../exceptions/index.js";

const engine = createEngine(fakePorts());
const podMatch = { any: [{ resources: { kinds: ["Pod"] } }] };

function compiled(rule: JsonObject): CompiledPolicy {
  const r = engine.compile(clusterPolicy("p", [{ name: "r", match: podMatch, ...rule }]));
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.policy;
}

const ruleOf = (policy: CompiledPolicy) =>
  kyvernoCompiledRules(policy).find((r) => r.name === "r") ?? assert.fail("no rule r");
const labelled = pod({ name: "web", labels: { app: "web" } });
const unlabelled = pod({ name: "web", labels: { team: "a" } });
const requireApp = { message: "app label", pattern: { metadata: { labels: { app: "?*" } } } };

describe("fastPassOf", () => {
  test("a fixed pattern passes at once with the rule's own pass result", () => {
    const policy = compiled({ validate: requireApp });
    const fast = ruleOf(policy).fastPass ?? assert.fail("expected a fast pass");
    assert.equal(fast(labelled, "CREATE", new Map()), ruleOf(policy).validatePass?.result);
    assert.deepEqual(fast(labelled, "CREATE", new Map()), {
      rule: "r",
      type: "Validation",
      status: "pass",
      message: "validation rule 'r' passed.",
    });
  });

  test("a plain failure is Kyverno's text with the failing path, the same object for every resource failing there", () => {
    const policy = compiled({ validate: requireApp });
    const fast = ruleOf(policy).fastPass ?? assert.fail("expected a fast pass");
    const failed = fast(unlabelled, "CREATE", new Map());
    assert.deepEqual(failed, {
      rule: "r",
      type: "Validation",
      status: "fail",
      message: "validation error: app label. rule r failed at path /metadata/labels/app/",
      path: "/metadata/labels/app/",
    });
    assert.equal(fast(pod({ name: "db", labels: { team: "b" } }), "CREATE", new Map()), failed);
    assert.deepEqual(fast(pod({ name: "api", labels: {} }), "DELETE", new Map()), failed);
  });

  test("a failure answered fast is the one the full way gives", () => {
    const policy = compiled({ validate: requireApp });
    const fast = engine.validate(policy, { resource: unlabelled, operation: "CREATE", namespaceLabels: {} }).rules;
    // An exception that does not apply sends the request the full way without changing its answer.
    const exception = compileException({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "other", namespace: "default" },
      spec: {
        exceptions: [{ policyName: "other", ruleNames: ["r"] }],
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
      },
    });
    if (!exception.ok) throw new Error(exception.problems.map((p) => p.message).join("; "));
    const full = engine.validate(policy, {
      resource: unlabelled,
      operation: "CREATE",
      namespaceLabels: {},
      exceptions: [exception.exception],
    }).rules;
    assert.deepEqual(fast, full);
  });

  test("an UPDATE failure, a message with variables and a skip are left to the full way", () => {
    const policy = compiled({ validate: requireApp });
    const fast = ruleOf(policy).fastPass ?? assert.fail("expected a fast pass");
    assert.equal(fast(unlabelled, "UPDATE", new Map()), undefined);
    const named = compiled({
      validate: { message: "{{ request.object.metadata.name }} needs an app label", pattern: requireApp.pattern },
    });
    assert.equal(
      (ruleOf(named).fastPass ?? assert.fail("expected a fast pass"))(unlabelled, "CREATE", new Map()),
      undefined,
    );
    // A conditional anchor that does not hold: a skip, with the full way's reason.
    const onlyDb = compiled({
      validate: { message: "m", pattern: { metadata: { "(name)": "db", labels: { app: "?*" } } } },
    });
    assert.equal(
      (ruleOf(onlyDb).fastPass ?? assert.fail("expected a fast pass"))(unlabelled, "CREATE", new Map()),
      undefined,
    );
    assert.equal(
      engine.validate(onlyDb, { resource: unlabelled, operation: "CREATE", namespaceLabels: {} }).rules[0]?.status,
      "skip",
    );
  });

  test("a fixed anyPattern passes with the index of the pattern that passed, and leaves failures to the full way", () => {
    const policy = compiled({
      validate: {
        message: "m",
        anyPattern: [{ metadata: { labels: { app: "db" } } }, { metadata: { labels: { app: "?*" } } }],
      },
    });
    const fast = ruleOf(policy).fastPass ?? assert.fail("expected a fast pass");
    assert.deepEqual(fast(labelled, "CREATE", new Map()), {
      rule: "r",
      type: "Validation",
      status: "pass",
      message: "validation rule 'r' anyPattern[1] passed.",
    });
    assert.equal(fast(unlabelled, "CREATE", new Map()), undefined);
  });

  const without: [string, JsonObject][] = [
    [
      "a variable in the pattern",
      { validate: { pattern: { metadata: { labels: { app: "{{ request.object.metadata.name }}" } } } } },
    ],
    [
      "a variable in a pattern key",
      { validate: { pattern: { metadata: { labels: { "{{ request.object.metadata.name }}": "?*" } } } } },
    ],
    ["a reference in the pattern", { validate: { pattern: { metadata: { labels: { app: "?*", team: "$(app)" } } } } }],
    ["context entries", { context: [{ name: "x", variable: { value: "y" } }], validate: requireApp }],
    ["a deny rule", { validate: { deny: { conditions: { any: [{ key: "a", operator: "Equals", value: "b" }] } } } }],
    [
      "a foreach rule",
      { validate: { foreach: [{ list: "request.object.spec.containers", pattern: { name: "?*" } }] } },
    ],
    ["a podSecurity rule", { validate: { podSecurity: { level: "baseline", version: "latest" } } }],
  ];
  for (const [name, rule] of without) {
    test(`a rule with ${name} has none`, () => assert.equal(ruleOf(compiled(rule)).fastPass, undefined));
  }

  test("a request carrying PolicyExceptions goes the full way: a passing Pod that an exception covers is a skip", () => {
    const policy = compiled({ validate: requireApp });
    const exception = compileException({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "web-is-fine", namespace: "default" },
      spec: {
        exceptions: [{ policyName: "p", ruleNames: ["r"] }],
        match: { any: [{ resources: { kinds: ["Pod"], names: ["web"] } }] },
      },
    });
    if (!exception.ok) throw new Error(exception.problems.map((p) => p.message).join("; "));
    const request: EngineRequest = {
      resource: labelled,
      operation: "CREATE",
      namespaceLabels: {},
      exceptions: [exception.exception],
    };
    const [result] = engine.validate(policy, request).rules;
    assert.equal(result?.status, "skip");
    assert.deepEqual(result?.exceptions, ["default/web-is-fine"]);
    assert.equal(
      engine.validate(policy, { resource: labelled, operation: "CREATE", namespaceLabels: {} }).rules[0]?.status,
      "pass",
    );
  });
});

describe("fast passes of rules with preconditions", () => {
  const createOnly = { all: [{ key: "{{ request.operation }}", operator: "Equals", value: "CREATE" }] };
  const slow = (policy: CompiledPolicy): CompiledPolicy =>
    policy.language === "kyverno"
      ? { ...policy, rules: policy.rules.map((r) => ({ ...r, fastPass: undefined })) }
      : policy;

  test("a rule whose preconditions hold passes with its own pass result; one whose preconditions do not is the full way's skip", () => {
    const policy = compiled({ preconditions: createOnly, validate: requireApp });
    const created = engine.validate(policy, { resource: labelled, operation: "CREATE", namespaceLabels: {} }).rules;
    assert.equal(created[0], ruleOf(policy).validatePass?.result);
    for (const operation of ["CREATE", "UPDATE"] as const)
      for (const resource of [labelled, unlabelled]) {
        const request = { resource, operation, namespaceLabels: {}, oldResource: resource };
        assert.deepEqual(engine.validate(policy, request).rules, engine.validate(slow(policy), request).rules);
      }
    assert.deepEqual(
      engine.validate(policy, { resource: labelled, operation: "UPDATE", namespaceLabels: {}, oldResource: labelled })
        .rules[0],
      {
        rule: "r",
        type: "Validation",
        status: "skip",
        message: "preconditions not met",
      },
    );
  });

  test("preconditions that cannot be evaluated are the full way's error", () => {
    const policy = compiled({
      preconditions: { all: [{ key: "{{ request.object.spec.nothing.here }}", operator: "Equals", value: "x" }] },
      validate: requireApp,
    });
    const request = { resource: labelled, operation: "CREATE" as const, namespaceLabels: {} };
    const [result] = engine.validate(policy, request).rules;
    assert.equal(result?.status, "error");
    assert.deepEqual(engine.validate(policy, request).rules, engine.validate(slow(policy), request).rules);
  });
});

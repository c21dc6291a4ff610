/**
 * spec.webhookConfiguration.matchConditions of a kyverno.io policy (Kyverno `MatchPolicyContext`,
 * Kubernetes' webhook matchConditions): compiled at load, evaluated before the rules.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const podMatch = { any: [{ resources: { kinds: ["Pod"] } }] };
const requireTeam = {
  name: "require-team",
  match: podMatch,
  validate: { message: "label team is required", pattern: { metadata: { labels: { team: "?*" } } } },
};
const addTeam = {
  name: "add-team",
  match: podMatch,
  mutate: { patchStrategicMerge: { metadata: { labels: { team: "core" } } } },
};

function policyWith(conditions: JsonObject[], rules: JsonObject[] = [requireTeam]): JsonObject {
  return clusterPolicy("team", rules, {
    validationFailureAction: "Enforce",
    webhookConfiguration: { matchConditions: conditions },
  });
}

function compile(doc: JsonObject): CompiledPolicy {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function problemsOf(doc: JsonObject): string[] {
  const r = engine.compile(doc);
  return r.ok ? [] : r.problems.filter((p) => p.severity === "error").map((p) => `${p.path}: ${p.message}`);
}

const validate = (p: CompiledPolicy, resource: JsonObject, extra: object = {}) =>
  engine
    .validate(p, { resource, operation: "CREATE", namespaceLabels: {}, ...extra })
    .rules.map((r) => [r.rule, r.status, r.message]);

const notKubeSystem = { name: "not-kube-system", expression: "object.metadata.namespace != 'kube-system'" };

describe("webhookConfiguration.matchConditions", () => {
  test("all true: the rules run as without conditions", () => {
    const p = compile(policyWith([notKubeSystem, { name: "creates", expression: "request.operation == 'CREATE'" }]));
    assert.deepEqual(
      validate(p, pod({ name: "web" })).map((r) => r.slice(0, 2)),
      [["require-team", "fail"]],
    );
    assert.deepEqual(
      validate(p, pod({ name: "web", labels: { team: "a" } })).map((r) => r.slice(0, 2)),
      [["require-team", "pass"]],
    );
  });

  test("one false: the policy does not apply and gives no result, whatever the rules would say", () => {
    const p = compile(policyWith([notKubeSystem]));
    assert.deepEqual(validate(p, pod({ name: "web", namespace: "kube-system" })), []);
  });

  test("request reads the operation; oldObject is null on CREATE", () => {
    const p = compile(
      policyWith([{ name: "updates", expression: "request.operation == 'UPDATE' && oldObject != null" }]),
    );
    assert.deepEqual(validate(p, pod({ name: "web" })), []);
    const updated = validate(p, pod({ name: "web" }), {
      operation: "UPDATE",
      oldResource: pod({ name: "web", labels: { team: "a" } }),
    });
    assert.deepEqual(
      updated.map((r) => r.slice(0, 2)),
      [["require-team", "fail"]],
    );
  });

  test("a condition that errors (and none false) makes each matched rule an error naming it; a false one still wins", () => {
    const erroring = { name: "reads-missing", expression: "object.metadata.labels.missing == 'x'" };
    const [row] = validate(compile(policyWith([erroring])), pod({ name: "web" }));
    assert.equal(row?.[1], "error");
    assert.match(
      String(row?.[2]),
      /^spec\.webhookConfiguration\.matchConditions could not be evaluated \(reads-missing: .+\); the policy's rules were not evaluated$/,
    );
    assert.deepEqual(
      validate(compile(policyWith([erroring, notKubeSystem])), pod({ name: "web", namespace: "kube-system" })),
      [],
    );
  });

  test("authorizer (which Bylaw has no authorizer for) keeps the policy valid and answers an error, never a match", () => {
    const p = compile(
      policyWith([
        { name: "can-create", expression: "authorizer.group('').resource('pods').check('create').allowed()" },
      ]),
    );
    const [row] = validate(p, pod({ name: "web" }));
    assert.equal(row?.[1], "error");
    assert.match(String(row?.[2]), /can-create: it reads `authorizer`, which Bylaw does not provide/);
  });

  test("mutate rules are gated the same way: no patch where the conditions are false", () => {
    const p = compile(policyWith([notKubeSystem], [addTeam]));
    const inSystem = engine.mutate(p, {
      resource: pod({ name: "web", namespace: "kube-system" }),
      operation: "CREATE",
      namespaceLabels: {},
    });
    assert.deepEqual(inSystem.rules, []);
    const elsewhere = engine.mutate(p, { resource: pod({ name: "web" }), operation: "CREATE", namespaceLabels: {} });
    assert.deepEqual(
      elsewhere.rules.map((r) => [r.rule, r.status]),
      [["add-team", "pass"]],
    );
  });

  test("compile errors make the policy invalid, naming the field and the position", () => {
    assert.match(
      problemsOf(policyWith([{ name: "broken", expression: "object.metadata.name ==" }])).join("\n"),
      /^spec\.webhookConfiguration\.matchConditions\[0\]\.expression: Invalid value: .*compilation failed: ERROR: <input>:1:\d+/,
    );
    assert.match(
      problemsOf(policyWith([{ name: "text", expression: "'a'" }])).join("\n"),
      /expected to be of type bool/,
    );
    assert.match(
      problemsOf(policyWith([{ name: "ns", expression: "namespaceObject != null" }])).join("\n"),
      /^spec\.webhookConfiguration\.matchConditions\[0\]\.expression: .*undeclared reference to 'namespaceObject'/,
    );
    assert.deepEqual(problemsOf(policyWith([notKubeSystem, notKubeSystem])), [
      'spec.webhookConfiguration.matchConditions[1].name: Duplicate value: "not-kube-system"',
    ]);
    assert.match(
      problemsOf(policyWith([{ name: "", expression: "true" }])).join(),
      /matchConditions\[0\]\.name: Required value/,
    );
  });

  test("names are Kubernetes' qualified names in full (the API server would refuse the webhook): name part ≤ 63, prefix ≤ 253", () => {
    assert.deepEqual(
      problemsOf(
        policyWith([
          { name: "n".repeat(63), expression: "true" },
          { name: `${"p".repeat(250)}.io/ok`, expression: "true" },
        ]),
      ),
      [],
      "63 and 253 fit",
    );
    assert.match(
      problemsOf(policyWith([{ name: "n".repeat(64), expression: "true" }])).join(),
      /matchConditions\[0\]\.name: Invalid value: "n{64}": name part must be no more than 63 characters/,
    );
    assert.match(
      problemsOf(policyWith([{ name: `${"p".repeat(251)}.io/ok`, expression: "true" }])).join(),
      /matchConditions\[0\]\.name: Invalid value: .*prefix part must be no more than 253 characters/,
    );
    assert.match(
      problemsOf(policyWith([{ name: "-x", expression: "true" }])).join(),
      /Invalid value: "-x": name part must consist of alphanumeric characters/,
    );
  });
});

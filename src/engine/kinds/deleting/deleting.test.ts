/** DeletingPolicy offline (issue 34 §3): compiled once into its own body; one Deletion result a resource, as Kyverno's CLI answers. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());

function dpol(spec: JsonObject, extra: { kind?: string; namespace?: string } = {}): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: extra.kind ?? "DeletingPolicy",
    metadata: { name: "old-pods", ...(extra.namespace !== undefined ? { namespace: extra.namespace } : {}) },
    spec: {
      schedule: "*/1 * * * *",
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] },
      ...spec,
    },
  };
}

function pod(name: string, labels: Record<string, string> = {}, namespace = "default"): JsonObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace, labels }, spec: { containers: [] } };
}

function compiled(doc: JsonObject) {
  const r = engine.compile(doc);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

function rows(doc: JsonObject, resource: JsonObject): [string, string, string, string][] {
  const policy = compiled(doc);
  const response = engine.validate(policy, { resource, operation: "CREATE", namespaceLabels: {} });
  return response.rules.map((r) => [r.rule, r.type, r.status, r.message]);
}

function problems(doc: JsonObject): string[] {
  const r = engine.compile(doc);
  assert.equal(r.ok, false);
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
}

const expired = { conditions: [{ name: "expired", expression: "object.metadata.labels['expire'] == 'true'" }] };

test("its own compiled body: language deleting, no rules, the schedule, propagation and programs compiled once", () => {
  const p = compiled(dpol({ ...expired, deletionPropagationPolicy: "Orphan" }));
  assert.equal(p.language, "deleting");
  assert.equal("rules" in p, false, "no rules: its own body");
  assert.deepEqual(p.phases, ["delete"]);
  assert.equal(p.admission, false);
  if (p.language !== "deleting") return;
  assert.equal(p.deleting.schedule, "*/1 * * * *");
  assert.equal(p.deleting.propagation, "Orphan");
  assert.equal(p.deleting.conditions.length, 1);
});

test("a matched pod whose conditions hold passes (it would be deleted), as Kyverno's CLI: 'resource matched'", () => {
  assert.deepEqual(rows(dpol(expired), pod("a", { expire: "true" })), [
    ["old-pods", "Deletion", "pass", "resource matched"],
  ]);
});

test("a condition false fails: 'resource did not match'; a resource matchConstraints do not select gets no result, as Kyverno 1.19's CLI", () => {
  assert.deepEqual(rows(dpol(expired), pod("b", { expire: "no" })), [
    ["old-pods", "Deletion", "fail", "resource did not match"],
  ]);
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
  assert.deepEqual(rows(dpol(expired), cm), []);
});

test("variables are read by conditions; a policy without conditions deletes whatever it selects", () => {
  const spec = {
    variables: [{ name: "team", expression: "object.metadata.labels['team']" }],
    conditions: [{ name: "t", expression: "variables.team == 'x'" }],
  };
  assert.equal(rows(dpol(spec), pod("a", { team: "x" }))[0]?.[2], "pass");
  assert.equal(rows(dpol(spec), pod("a", { team: "y" }))[0]?.[2], "fail");
  assert.equal(rows(dpol({}), pod("a"))[0]?.[2], "pass");
});

test("a condition that errors is an error naming the condition, never a deletion", () => {
  const [row] = rows(dpol(expired), pod("a"));
  assert.equal(row?.[2], "error");
  assert.match(row?.[3] ?? "", /^cannot evaluate conditions\[0\] \(expired\): /);
});

test("offline a NamespacedDeletingPolicy decides resources of any namespace, as Kyverno's CLI (its cleanup controller lists its own namespace only)", () => {
  const doc = dpol(expired, { kind: "NamespacedDeletingPolicy", namespace: "team-a" });
  assert.equal(compiled(doc).namespace, "team-a");
  assert.equal(rows(doc, pod("a", { expire: "true" }, "team-a"))[0]?.[2], "pass");
  assert.deepEqual(rows(doc, pod("b", { expire: "true" }, "team-b"))[0]?.slice(2), ["pass", "resource matched"]);
  assert.deepEqual(rows(doc, pod("c", { expire: "no" }, "team-b"))[0]?.slice(2), ["fail", "resource did not match"]);
  const noNamespace = { apiVersion: "v1", kind: "Pod", metadata: { name: "d", labels: { expire: "true" } } };
  assert.equal(rows(doc, noNamespace)[0]?.[2], "pass");
});

test("an invalid schedule, a missing one, a bad propagation or CEL that does not compile fails naming the field", () => {
  assert.deepEqual(problems(dpol({ schedule: "every minute" })), [
    'spec.schedule: DeletingPolicy old-pods: spec.schedule: Invalid value: "every minute": schedule spec in the deletingPolicy is not in proper cron format',
  ]);
  assert.deepEqual(problems(dpol({ schedule: "" })), [
    "spec.schedule: DeletingPolicy old-pods: spec.schedule is required",
  ]);
  assert.match(problems(dpol({ deletionPropagationPolicy: "Now" }))[0] ?? "", /^spec\.deletionPropagationPolicy: /);
  const bad = problems(dpol({ conditions: [{ name: "c", expression: "object.metadata.name ==" }] }));
  assert.match(bad[0] ?? "", /^spec\.conditions\[0\]\.expression: DeletingPolicy old-pods: .*compilation failed/);
  const notBool = problems(dpol({ conditions: [{ name: "c", expression: "'yes'" }] }));
  assert.match(notBool[0] ?? "", /^spec\.conditions\[0\]\.expression: /);
  // dyn is not bool to Kyverno's compiler either (it wants the type exactly).
  const dyn = problems(dpol({ conditions: [{ name: "c", expression: "object.metadata.labels" }] }));
  assert.match(
    dyn[0] ?? "",
    /^spec\.conditions\[0\]\.expression: .*compilation failed: output is expected to be of type bool$/,
  );
  assert.match(
    problems(dpol({ matchConstraints: { resourceRules: [] } }))[0] ?? "",
    /^spec\.matchConstraints\.resourceRules: /,
  );
});

test("a policies.kyverno.io PolicyException whose matchConditions hold keeps the resource", () => {
  const ex = engine.compileException({
    apiVersion: "policies.kyverno.io/v1",
    kind: "PolicyException",
    metadata: { name: "keep-a", namespace: "default" },
    spec: {
      policyRefs: [{ name: "old-pods", kind: "DeletingPolicy" }],
      matchConditions: [{ name: "a", expression: "object.metadata.name == 'a'" }],
    },
  });
  assert.ok(ex.ok, JSON.stringify(ex));
  const policy = compiled(dpol({}));
  const run = (name: string) =>
    engine.validate(policy, {
      resource: pod(name),
      operation: "CREATE",
      namespaceLabels: {},
      exceptions: [ex.exception],
    }).rules[0];
  assert.equal(run("a")?.status, "fail");
  assert.deepEqual(run("a")?.exceptions, ["default/keep-a"]);
  assert.equal(run("b")?.status, "pass");
});

const namespacesRule = {
  matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces"] }] },
};

function nsRows(spec: JsonObject, request: { resource: JsonObject; namespaceObject?: JsonObject | null }): string[] {
  const policy = compiled(dpol({ ...namespacesRule, ...spec }));
  const response = engine.validate(policy, { operation: "CREATE", namespaceLabels: {}, ...request });
  return response.rules.map((r) => `${r.status}: ${r.message}`);
}

test("a Namespace's namespaceObject is itself: its own labels when the caller resolved none, its resolved copy (annotations) when it did", () => {
  const ns: JsonObject = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "scratch", labels: { temp: "yes" }, annotations: { owner: "nobody" } },
  };
  const byLabel = { conditions: [{ name: "temp", expression: "namespaceObject.metadata.labels['temp'] == 'yes'" }] };
  assert.deepEqual(nsRows(byLabel, { resource: ns }), ["pass: resource matched"]);
  const byAnnotation = {
    conditions: [
      { name: "orphan", expression: "namespaceObject.metadata.?annotations['owner'].orValue('') == 'nobody'" },
    ],
  };
  // Kyverno builds a resolver-less Namespace from the name and labels only, so an annotation reads empty...
  assert.deepEqual(nsRows(byAnnotation, { resource: ns }), ["fail: resource did not match"]);
  // ...and reads the resolver's copy (the cluster's Namespace) when it has one.
  assert.deepEqual(nsRows(byAnnotation, { resource: ns, namespaceObject: ns }), ["pass: resource matched"]);
});

test("a namespaced object whose Namespace the caller could not resolve sees namespaceObject null, as Kyverno's CLI without a values entry", () => {
  const policy = compiled(dpol({ conditions: [{ name: "none", expression: "namespaceObject == null" }] }));
  const status = (namespaceObject?: JsonObject | null): string[] =>
    engine
      .validate(policy, {
        resource: pod("a"),
        operation: "CREATE",
        namespaceLabels: {},
        ...(namespaceObject !== undefined ? { namespaceObject } : {}),
      })
      .rules.map((x) => x.status);
  assert.deepEqual(status(null), ["pass"]);
  // Absent (a caller that has only the labels): one is built from the name and labels.
  assert.deepEqual(status(), ["fail"]);
  assert.deepEqual(status({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }), ["fail"]);
});

/** One loop for both families: a DeletingPolicy compiles to what the cleanup loop lists, and decides per object. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { compileRunnable, RUNNABLE_KINDS } from "./runnable.js";

const engine = createEngine(fakePorts());
const deps = { env: engine.env, compile: (doc: Parameters<typeof engine.compile>[0]) => engine.compile(doc) };

const pod = (name: string, labels: Record<string, string>, namespace = "shop"): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace, labels },
});

const spec = {
  schedule: "@hourly",
  deletionPropagationPolicy: "Foreground",
  matchConstraints: {
    resourceRules: [{ apiGroups: ["", "apps"], apiVersions: ["v1"], resources: ["pods", "deployments", "pods/log"] }],
  },
  conditions: [{ name: "expired", expression: "object.metadata.labels['expire'] == 'true'" }],
};

test("a DeletingPolicy lists each group, version and resource its resource rules name (no subresources)", () => {
  const r = compileRunnable("DeletingPolicy", { metadata: { name: "p" }, spec }, deps);
  assert.ok(r.ok, r.ok ? "" : r.error);
  assert.equal(r.value.schedule, "@hourly");
  assert.equal(r.value.propagation, "Foreground");
  assert.equal(r.value.namespace, "");
  assert.deepEqual(
    r.value.selectors.map((s) => [s.label, s.selector]),
    [
      ["pods", { by: "resource", group: "", version: "v1", resource: "pods" }],
      ["deployments", { by: "resource", group: "", version: "v1", resource: "deployments" }],
      ["pods", { by: "resource", group: "apps", version: "v1", resource: "pods" }],
      ["deployments", { by: "resource", group: "apps", version: "v1", resource: "deployments" }],
    ],
  );
});

test("it deletes what its conditions select, keeps the rest, and an object whose condition errors is an error, not a deletion", () => {
  const r = compileRunnable("DeletingPolicy", { metadata: { name: "p" }, spec }, deps);
  assert.ok(r.ok);
  const decided = r.value.decide(
    [
      { resource: pod("a", { expire: "true" }), namespaceLabels: {}, plural: "pods" },
      { resource: pod("b", { expire: "false" }), namespaceLabels: {}, plural: "pods" },
      { resource: pod("c", {}), namespaceLabels: {}, plural: "pods" },
    ],
    engine.env,
  );
  assert.deepEqual(
    decided.deletions.map((d) => (d["metadata"] as JsonObject)["name"]),
    ["a"],
  );
  assert.equal(decided.errors.length, 1);
  assert.match(decided.errors[0]?.message ?? "", /^cannot evaluate conditions\[0\] \(expired\): /);
});

test("a NamespacedDeletingPolicy runs in its namespace only; an invalid one names the field", () => {
  const r = compileRunnable("NamespacedDeletingPolicy", { metadata: { name: "p", namespace: "team-a" }, spec }, deps);
  assert.ok(r.ok);
  assert.equal(r.value.namespace, "team-a");
  const decided = r.value.decide(
    [
      { resource: pod("a", { expire: "true" }, "team-a"), namespaceLabels: {}, plural: "pods" },
      { resource: pod("b", { expire: "true" }, "team-b"), namespaceLabels: {}, plural: "pods" },
    ],
    engine.env,
  );
  assert.deepEqual(
    decided.deletions.map((d) => (d["metadata"] as JsonObject)["namespace"]),
    ["team-a"],
  );
  const invalid = compileRunnable(
    "DeletingPolicy",
    { metadata: { name: "p" }, spec: { ...spec, schedule: "x" } },
    deps,
  );
  assert.ok(!invalid.ok);
  assert.match(invalid.error, /^spec\.schedule: DeletingPolicy p: /);
});

test("a policies.kyverno.io PolicyException naming the DeletingPolicy keeps the objects it excepts, as bylaw test does", () => {
  const r = compileRunnable("DeletingPolicy", { metadata: { name: "p" }, spec }, deps);
  assert.ok(r.ok);
  assert.equal(r.value.counted, "deleting");
  const ex = engine.compileException({
    apiVersion: "policies.kyverno.io/v1",
    kind: "PolicyException",
    metadata: { name: "keep-a", namespace: "policy-exceptions" },
    spec: {
      policyRefs: [{ name: "p", kind: "DeletingPolicy" }],
      matchConditions: [{ name: "a", expression: "object.metadata.name == 'a'" }],
    },
  });
  assert.ok(ex.ok, JSON.stringify(ex));
  const other = engine.compileException({
    apiVersion: "policies.kyverno.io/v1",
    kind: "PolicyException",
    metadata: { name: "other-policy", namespace: "policy-exceptions" },
    spec: {
      policyRefs: [{ name: "q", kind: "DeletingPolicy" }],
      matchConditions: [{ name: "all", expression: "true" }],
    },
  });
  assert.ok(other.ok, JSON.stringify(other));
  const decided = r.value.decide(
    [
      { resource: pod("a", { expire: "true" }), namespaceLabels: {}, plural: "pods" },
      { resource: pod("b", { expire: "true" }), namespaceLabels: {}, plural: "pods" },
    ],
    engine.env,
    [ex.exception, other.exception],
  );
  assert.deepEqual(
    decided.deletions.map((d) => (d["metadata"] as JsonObject)["name"]),
    ["b"],
  );
  assert.deepEqual(decided.errors, []);
});

test("the loop watches each deleting kind (from the engine's registry) at its CRD's group, storage version and plural", () => {
  const crds = join(resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", ".."), "deploy", "crds");
  const files = [
    "kyverno.io_cleanuppolicies.yaml",
    "kyverno.io_clustercleanuppolicies.yaml",
    "policies.kyverno.io_deletingpolicies.yaml",
    "policies.kyverno.io_namespaceddeletingpolicies.yaml",
  ];
  const wanted = files.map((f) => {
    const crd = parse(readFileSync(join(crds, f), "utf8")) as {
      spec: { group: string; names: { kind: string; plural: string }; versions: { name: string; storage?: boolean }[] };
    };
    const version = crd.spec.versions.find((v) => v.storage === true)?.name;
    return { kind: crd.spec.names.kind, gvr: { group: crd.spec.group, version, resource: crd.spec.names.plural } };
  });
  const byKind = (a: { kind: string }, b: { kind: string }): number => a.kind.localeCompare(b.kind);
  assert.deepEqual([...RUNNABLE_KINDS].sort(byKind), wanted.sort(byKind));
});

test("a DeletingPolicy's conditions read the Namespace the loop read (annotations too) as namespaceObject", () => {
  const byOwner = {
    ...spec,
    conditions: [{ name: "unowned", expression: "namespaceObject.metadata.?annotations['owner'].orValue('') == ''" }],
  };
  const r = compileRunnable("DeletingPolicy", { metadata: { name: "p" }, spec: byOwner }, deps);
  assert.ok(r.ok);
  const namespace = (name: string, annotations: Record<string, string>): JsonObject => ({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, annotations },
  });
  const decided = r.value.decide(
    [
      {
        resource: pod("a", {}, "owned"),
        namespaceLabels: {},
        namespaceObject: namespace("owned", { owner: "x" }),
        plural: "pods",
      },
      { resource: pod("b", {}, "free"), namespaceLabels: {}, namespaceObject: namespace("free", {}), plural: "pods" },
    ],
    engine.env,
  );
  assert.deepEqual(decided.errors, []);
  assert.deepEqual(
    decided.deletions.map((d) => (d["metadata"] as JsonObject)["name"]),
    ["b"],
  );
});

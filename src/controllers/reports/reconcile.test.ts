import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, reportKind, type CompiledPolicy, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { reconcileReport } from "./reconcile.js";
import { backgroundPolicies, scanResource } from "./scan.js";
import { scanKinds } from "./policy-kinds.js";

const engine = createEngine(fakePorts());

function compiled(doc: JsonObject): CompiledPolicy {
  const c = engine.compile(doc);
  assert.ok(c.ok, JSON.stringify(c));
  return c.policy;
}

const PSS = compiled({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "pss-baseline" },
  spec: {
    background: true,
    validationFailureAction: "Audit",
    rules: [
      {
        name: "baseline",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { podSecurity: { level: "baseline", version: "latest" } },
      },
    ],
  },
});

const ADMISSION_ONLY = compiled({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "admission-only" },
  spec: {
    background: false,
    rules: [
      {
        name: "team",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        validate: { message: "team", pattern: { metadata: { labels: { team: "?*" } } } },
      },
    ],
  },
});

function pod(privileged: boolean, uid = "u-1"): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "shop", uid, resourceVersion: "7" },
    spec: { containers: [{ name: "app", image: "nginx", securityContext: { privileged } }] },
  };
}

const scan = (resource: JsonObject) =>
  scanResource({ engine, policies: backgroundPolicies([PSS, ADMISSION_ONLY]), resource, namespaceLabels: {} });

test("a background scan evaluates background policies only, and lists the kinds they match (autogen ones too)", () => {
  assert.deepEqual(
    backgroundPolicies([PSS, ADMISSION_ONLY]).map((p) => p.name),
    ["pss-baseline"],
  );
  const { targets, unlisted } = scanKinds(backgroundPolicies([PSS]));
  assert.deepEqual(
    targets.map((t) => t.text),
    [
      "Pod",
      "apps/v1/DaemonSet",
      "apps/v1/Deployment",
      "apps/v1/ReplicaSet",
      "apps/v1/StatefulSet",
      "batch/v1/CronJob",
      "batch/v1/Job",
      "v1/ReplicationController",
    ],
  );
  assert.deepEqual(unlisted, []);
});

test("a failing Pod gets one report named by its uid, owned by it, scoped to it, in Kyverno 1.19's layout", () => {
  const action = reconcileReport({
    resource: pod(true),
    responses: scan(pod(true)),
    existing: undefined,
    nowMillis: 5_000,
  });
  assert.equal(action.action, "create");
  assert.ok(action.action === "create");
  const report = action.report;
  assert.equal(report["kind"], "PolicyReport");
  const { annotations, ...meta } = report["metadata"] as JsonObject;
  assert.deepEqual(meta, {
    name: "u-1",
    namespace: "shop",
    labels: { "app.kubernetes.io/managed-by": "kyverno", "reports.bylaw.dev/managed-by": "bylaw" },
    ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "web", uid: "u-1" }],
  });
  // What lets the scan watch reports' metadata only (compact-report.ts): the content's digest and the policies with rows.
  assert.deepEqual(Object.keys(annotations as JsonObject), [
    "reports.bylaw.dev/content-digest",
    "reports.bylaw.dev/row-policies",
  ]);
  assert.equal((annotations as JsonObject)["reports.bylaw.dev/row-policies"], "pss-baseline");
  assert.deepEqual(report["scope"], { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop", uid: "u-1" });
  assert.deepEqual(report["summary"], { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 });
  const [row] = report["results"] as JsonObject[];
  assert.equal(row?.["policy"], "pss-baseline");
  assert.equal(row?.["rule"], "baseline");
  assert.equal(row?.["result"], "fail");
  assert.equal(row?.["source"], "kyverno");
  assert.deepEqual(row?.["timestamp"], { seconds: 5, nanos: 0 });
  assert.equal(row?.["resources"], undefined, "the scope names the resource; rows do not");
  assert.equal((row?.["properties"] as JsonObject)["process"], "background scan");
});

test("nothing is written when only the time changed; a fixed Pod's report is updated with the resourceVersion read", () => {
  const first = reconcileReport({
    resource: pod(true),
    responses: scan(pod(true)),
    existing: undefined,
    nowMillis: 5_000,
  });
  assert.ok(first.action === "create");
  const stored = {
    ...first.report,
    metadata: {
      ...(first.report["metadata"] as JsonObject),
      resourceVersion: "42",
      managedFields: [{ manager: "bylaw", operation: "Update" }],
    },
  };
  const again = reconcileReport({
    resource: pod(true),
    responses: scan(pod(true)),
    existing: stored,
    nowMillis: 99_000,
  });
  assert.deepEqual(again, { action: "none" });
  const fixed = reconcileReport({
    resource: pod(false),
    responses: scan(pod(false)),
    existing: stored,
    nowMillis: 99_000,
  });
  assert.equal(fixed.action, "update");
  assert.ok(fixed.action === "update");
  assert.equal((fixed.report["metadata"] as JsonObject)["resourceVersion"], "42");
  assert.deepEqual(fixed.report["summary"], { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 });
});

test("a resource no background policy matches keeps no report: an existing one is deleted, none is created", () => {
  const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "shop", uid: "u-2" } };
  assert.deepEqual(
    reconcileReport({ resource: configMap, responses: scan(configMap), existing: undefined, nowMillis: 0 }),
    {
      action: "none",
    },
  );
  const existing = { kind: "PolicyReport", metadata: { name: "u-2", namespace: "shop" } };
  assert.deepEqual(reconcileReport({ resource: configMap, responses: scan(configMap), existing, nowMillis: 0 }), {
    action: "delete",
    report: existing,
  });
});

test("with --openreports-enabled the same report is an openreports.io Report (a ClusterReport for a cluster-scoped resource)", () => {
  const action = reconcileReport({
    resource: pod(true),
    responses: scan(pod(true)),
    existing: undefined,
    nowMillis: 5_000,
    format: "openreports",
  });
  assert.ok(action.action === "create");
  assert.equal(action.report["apiVersion"], "openreports.io/v1alpha1");
  assert.equal(action.report["kind"], "Report");
  assert.deepEqual(action.report["summary"], { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 });
  const stored = {
    ...action.report,
    metadata: {
      ...(action.report["metadata"] as JsonObject),
      resourceVersion: "1",
      managedFields: [{ manager: "bylaw", operation: "Update" }],
    },
  };
  assert.deepEqual(
    reconcileReport({
      resource: pod(true),
      responses: scan(pod(true)),
      existing: stored,
      nowMillis: 9_000,
      format: "openreports",
    }),
    { action: "none" },
  );
  assert.equal(reportKind("openreports", true), "ClusterReport");
  assert.equal(reportKind("wgpolicyk8s", true), "ClusterPolicyReport");
});

test("a background scan gives CEL's namespaceObject the Namespace the cache holds, annotations included", () => {
  const owned = compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "owned-namespace" },
    spec: {
      validationActions: ["Audit"],
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
      },
      validations: [
        { expression: "namespaceObject.metadata.?annotations['owner'].orValue('') != ''", message: "no owner" },
      ],
    },
  });
  const statuses = (annotations: Record<string, string>): string[] =>
    scanResource({
      engine,
      policies: backgroundPolicies([owned]),
      resource: pod(false),
      namespaceLabels: {},
      namespaceObject: { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop", annotations } },
    }).flatMap((r) => r.rules.map((rule) => rule.status));
  assert.deepEqual(statuses({ owner: "payments" }), ["pass"]);
  assert.deepEqual(statuses({}), ["fail"]);
});

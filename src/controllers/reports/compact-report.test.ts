/**
 * The reports informer keeps reports compact (compact-report.ts): every write decision the scan
 * makes from a compact report is the one it makes from the report as the server returns it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject, type PolicyResponse } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { compactReport, internedCount } from "./compact-report.js";
import { reconcileReport } from "./reconcile.js";
import { backgroundPolicies, scanResource } from "./scan.js";

const engine = createEngine(fakePorts());

function compiled(doc: JsonObject): CompiledPolicy {
  const c = engine.compile(doc);
  assert.ok(c.ok, JSON.stringify(c));
  return c.policy;
}

const rule = (name: string, validate: JsonObject): JsonObject => ({
  name,
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
  validate,
});
const PSS = compiled({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "pss-baseline" },
  spec: { background: true, rules: [rule("baseline", { podSecurity: { level: "baseline", version: "latest" } })] },
});
const TEAM = compiled({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "team" },
  spec: {
    background: true,
    rules: [rule("team", { message: "team label", pattern: { metadata: { labels: { team: "?*" } } } })],
  },
});
/** Evaluated at admission only: the scan keeps its rows. */
const ADMISSION_ONLY = compiled({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "admission-only" },
  spec: {
    background: false,
    rules: [rule("owner", { message: "owner", pattern: { metadata: { labels: { owner: "?*" } } } })],
  },
});

function pod(o: { privileged?: boolean; team?: string; uid?: string } = {}): JsonObject {
  const uid = o.uid ?? "u-1";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `web-${uid}`,
      namespace: "shop",
      uid,
      resourceVersion: "7",
      ...(o.team !== undefined ? { labels: { team: o.team } } : {}),
    },
    spec: { containers: [{ name: "app", image: "nginx", securityContext: { privileged: o.privileged ?? false } }] },
  };
}

const scanned = (resource: JsonObject): PolicyResponse[] =>
  scanResource({ engine, policies: backgroundPolicies([PSS, TEAM]), resource, namespaceLabels: {} });
const admitted = (resource: JsonObject): PolicyResponse[] =>
  scanResource({ engine, policies: [ADMISSION_ONLY], resource, namespaceLabels: {} });
const keep = (row: JsonObject): boolean => row["policy"] === "admission-only";

/** A report as the reports informer lists it: server fields added, no kind or apiVersion, no managedFields. */
function listed(report: JsonObject, resourceVersion: string): JsonObject {
  const rest = Object.fromEntries(Object.entries(report).filter(([k]) => k !== "kind" && k !== "apiVersion"));
  return {
    ...rest,
    metadata: {
      ...(report["metadata"] as JsonObject),
      resourceVersion,
      uid: "report-uid",
      generation: 3,
      creationTimestamp: "2026-11-30T10:00:00Z",
      annotations: { note: "set by someone" },
    },
  };
}

/** The report a first scan (plus an admission) wrote, as listed. */
function stored(resource: JsonObject, withAdmission: boolean): JsonObject {
  const first = reconcileReport({
    resource,
    responses: [...scanned(resource), ...(withAdmission ? admitted(resource) : [])],
    existing: undefined,
    nowMillis: 5_000,
  });
  assert.ok(first.action === "create");
  return listed(first.report, "42");
}

/**
 * The scan's decision from the full report and from the compact one: the same. From the compact one
 * the scan first reads the report whole (`read`) exactly when it holds rows `keep` keeps.
 */
function sameDecision(resource: JsonObject, read: JsonObject, nowMillis = 99_000): ReturnType<typeof reconcileReport> {
  const decide = (existing: JsonObject) =>
    reconcileReport({
      resource,
      responses: scanned(resource),
      existing: { ...existing, kind: "PolicyReport" },
      nowMillis,
      keep,
    });
  const full = decide(read);
  const first = decide(compactReport(read));
  const holdsKept = (read["results"] as JsonObject[]).some(keep);
  assert.equal(first.action === "read", holdsKept, "the whole report is read only when it holds rows to keep");
  const compact = first.action === "read" ? decide(read) : first;
  assert.equal(compact.action, full.action);
  if (full.action === "create" || full.action === "update") assert.deepEqual(compact, full);
  return compact;
}

test("a rescan where nothing changed writes nothing, from the compact report too", () => {
  for (const withAdmission of [false, true]) {
    const resource = pod({ privileged: true });
    assert.equal(sameDecision(resource, stored(resource, withAdmission)).action, "none");
  }
});

test("a changed resource is an update with the same report and resourceVersion, admission rows kept with their timestamps", () => {
  const before = pod({ privileged: true });
  const after = pod({ privileged: false, team: "a" });
  const action = sameDecision(after, stored(before, true));
  assert.ok(action.action === "update");
  assert.equal((action.report["metadata"] as JsonObject)["resourceVersion"], "42");
  const rows = action.report["results"] as JsonObject[];
  const kept = rows.find((r) => r["policy"] === "admission-only");
  assert.deepEqual(kept?.["timestamp"], { seconds: 5, nanos: 0 });
  assert.deepEqual(action.report["summary"], { pass: 2, fail: 1, warn: 0, error: 0, skip: 0 });
});

test("a report someone edited (rows, summary, labels or owners) is written back, from the compact report too", () => {
  const resource = pod();
  const read = stored(resource, false);
  const meta = read["metadata"] as JsonObject;
  const rows = read["results"] as JsonObject[];
  const edits: JsonObject[] = [
    { ...read, results: rows.map((r) => ({ ...r, result: "pass", message: "edited" })) },
    { ...read, results: rows.slice(1) },
    { ...read, summary: { pass: 9, fail: 0, warn: 0, error: 0, skip: 0 } },
    { ...read, metadata: { ...meta, labels: { "app.kubernetes.io/managed-by": "someone" } } },
    { ...read, metadata: { ...meta, ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "x", uid: "other" }] } },
  ];
  for (const edited of edits) assert.equal(sameDecision(resource, edited).action, "update");
});

test("a report whose resource no policy matches any more is deleted, from the compact report too", () => {
  const resource = pod();
  const read = stored(resource, false);
  const decide = (existing: JsonObject) =>
    reconcileReport({ resource, responses: [], existing: { ...existing, kind: "PolicyReport" }, nowMillis: 0 });
  const full = decide(read);
  const compact = decide(compactReport(read));
  assert.equal(full.action, "delete");
  assert.equal(compact.action, "delete");
  assert.ok(compact.action === "delete");
  const meta = compact.report["metadata"] as JsonObject;
  assert.deepEqual([compact.report["kind"], meta["name"], meta["namespace"]], ["PolicyReport", "u-1", "shop"]);
});

test("the compact report keeps only what the decision reads: no rows, their digest, and the policies' names shared by reports alike (frozen)", () => {
  const a = compactReport(stored(pod({ uid: "a" }), false)) as JsonObject;
  const b = compactReport(stored(pod({ uid: "b" }), false)) as JsonObject;
  assert.deepEqual(Object.keys(a["metadata"] as JsonObject).sort(), [
    "labels",
    "name",
    "namespace",
    "ownerReferences",
    "resourceVersion",
  ]);
  assert.equal(a["results"], undefined);
  assert.equal(a["summary"], undefined);
  assert.equal(typeof a["contentDigest"], "string");
  assert.deepEqual(a["rowPolicies"], ["pss-baseline", "team"]);
  assert.ok(a["rowPolicies"] === b["rowPolicies"], "the same list of policies is one object");
  assert.ok(Object.isFrozen(a["rowPolicies"]));
  assert.equal((a["metadata"] as JsonObject)["labels"], (b["metadata"] as JsonObject)["labels"]);
  assert.ok(internedCount() > 0);
  assert.ok(JSON.stringify(a).length * 2 < JSON.stringify(stored(pod({ uid: "a" }), false)).length);
});

test("the digest does not depend on key order: a report as the API server writes it (keys sorted) is the report Bylaw built", () => {
  const sortDeep = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortDeep)
      : typeof v === "object" && v !== null
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]),
          )
        : v;
  const resource = pod({ privileged: true });
  const read = stored(resource, false);
  const asServerWrites = sortDeep(read) as JsonObject;
  assert.notDeepEqual(Object.keys(read), Object.keys(asServerWrites));
  assert.equal(sameDecision(resource, asServerWrites).action, "none");
});

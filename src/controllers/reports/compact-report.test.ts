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

/** A managedFields entry of `manager`. */
const managed = (manager: string): JsonObject => ({
  manager,
  operation: "Update",
  apiVersion: "wgpolicyk8s.io/v1alpha2",
  time: "2026-11-30T10:00:00Z",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:results": {}, "f:summary": {} },
});

/** A report as the server returns it whole (written by Bylaw alone, its managedFields say): server fields added, no kind or apiVersion. */
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
      managedFields: [managed("bylaw")],
    },
  };
}

/**
 * The report as the reports informer is sent it: its metadata only (PartialObjectMetadata), with
 * the managers its managedFields name (`kubectl-edit` when someone edited it).
 */
function metadataOf(read: JsonObject, managers: readonly string[]): JsonObject {
  return {
    metadata: { ...(read["metadata"] as JsonObject), managedFields: managers.map(managed) },
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
 * the scan first reads the report whole (`read`) exactly when it holds rows `keep` keeps. From the
 * compacted metadata too (`managers`: who wrote it; the whole report is read first unless Bylaw alone did).
 */
function sameDecision(
  resource: JsonObject,
  read: JsonObject,
  o: { nowMillis?: number; managers?: readonly string[] } = {},
): ReturnType<typeof reconcileReport> {
  const nowMillis = o.nowMillis ?? 99_000;
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
  const managers = o.managers ?? ["bylaw"];
  const fromMetadata = decide(compactReport(metadataOf(read, managers)));
  const bylawAlone = managers.every((m) => m === "bylaw");
  assert.equal(
    fromMetadata.action === "read",
    holdsKept || !bylawAlone,
    "read whole: rows to keep, or someone else wrote it",
  );
  const metadataDecision = fromMetadata.action === "read" ? decide(read) : fromMetadata;
  assert.deepEqual(metadataDecision, full);
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
  for (const edited of edits) {
    const byKubectl = {
      ...edited,
      metadata: { ...(edited["metadata"] as JsonObject), managedFields: [managed("bylaw"), managed("kubectl-edit")] },
    };
    assert.equal(sameDecision(resource, byKubectl, { managers: ["bylaw", "kubectl-edit"] }).action, "update");
  }
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

test("from a report's metadata alone: its scope from its owner, its digest and policies from what Bylaw wrote with it, nothing of the rows", () => {
  const read = stored(pod({ uid: "m" }), true);
  const compact = compactReport(metadataOf(read, ["bylaw"])) as JsonObject;
  assert.deepEqual(compact["scope"], read["scope"]);
  assert.deepEqual(compact["rowPolicies"], ["admission-only", "pss-baseline", "team"]);
  assert.equal(typeof compact["writtenDigest"], "string");
  assert.equal(compact["results"], undefined);
  assert.equal((compact["metadata"] as JsonObject)["managedFields"], undefined);
  // Written by someone else too, or with no managedFields: nothing of its content is believed.
  for (const managers of [["bylaw", "kubectl-annotate"], ["kyverno"], []]) {
    const c = compactReport(metadataOf(read, managers)) as JsonObject;
    assert.equal(c["contentUnknown"], true, managers.join());
    assert.equal(c["writtenDigest"], undefined);
    assert.deepEqual(c["scope"], read["scope"]);
  }
});

test("a report with the same rows but not annotated by Bylaw alone (Kyverno's, an earlier Bylaw's, an annotation someone set) is written once, then left alone", () => {
  const resource = pod({ privileged: true });
  const read = stored(resource, false);
  const meta = read["metadata"] as JsonObject;
  const variants: JsonObject[] = [
    { ...read, metadata: { ...meta, annotations: {}, managedFields: [managed("kyverno")] } },
    { ...read, metadata: { ...meta, annotations: {} } },
    {
      ...read,
      metadata: {
        ...meta,
        annotations: { ...(meta["annotations"] as JsonObject), note: "x" },
        managedFields: [managed("bylaw"), managed("kubectl-annotate")],
      },
    },
  ];
  for (const existing of variants) {
    const decide = (e: JsonObject) =>
      reconcileReport({
        resource,
        responses: scanned(resource),
        existing: { ...e, kind: "PolicyReport" },
        nowMillis: 99_000,
      });
    const once = decide(existing);
    assert.ok(once.action === "update", JSON.stringify(once.action));
    assert.equal(decide(listed(once.report, "43")).action, "none");
    assert.equal(decide(compactReport(metadataOf(listed(once.report, "43"), ["bylaw"]))).action, "none");
  }
});

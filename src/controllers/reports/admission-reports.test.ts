import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject, type PolicyResponse } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { AdmissionReports } from "./admission-reports.js";
import { reconcileReport } from "./reconcile.js";
import { admissionOnlyPolicyNames, backgroundPolicies } from "./scan.js";

const engine = createEngine(fakePorts());

function compiled(name: string, background: boolean, labels: Record<string, string> = {}): CompiledPolicy {
  const c = engine.compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name, labels },
    spec: {
      background,
      validationFailureAction: "Audit",
      rules: [
        {
          name: "team",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          validate: { message: "a team label is required", pattern: { metadata: { labels: { team: "?*" } } } },
        },
      ],
    },
  });
  assert.ok(c.ok, JSON.stringify(c));
  return c.policy;
}

const ADMISSION_ONLY = compiled("admission-only", false);
const BACKGROUND = compiled("in-background", true);
const OPTED_OUT = compiled("opted-out", false, { "reports.kyverno.io/disabled": "true" });

function configMap(team?: string, uid = "u-1"): JsonObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c", namespace: "shop", uid, ...(team !== undefined ? { labels: { team } } : {}) },
  };
}

function validate(policy: CompiledPolicy, resource: JsonObject): PolicyResponse {
  return engine.validate(policy, { resource, operation: "CREATE", namespaceLabels: {} });
}

/**
 * An API server's report store: GET, POST (409 when it exists), PUT (409 on a stale resourceVersion);
 * a write records its `fieldManager` in the report's managedFields, as the API server does.
 */
function fakeReports() {
  const stored = new Map<string, JsonObject>();
  let version = 0;
  const calls: string[] = [];
  const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);
  const client = {
    getJson: (path: string): Promise<unknown> => {
      calls.push("GET");
      const found = stored.get(nameOf(path));
      return found === undefined
        ? Promise.reject(Object.assign(new Error("404"), { status: 404 }))
        : Promise.resolve(found);
    },
    sendJson: (method: string, path: string, body: unknown): Promise<unknown> => {
      calls.push(method);
      const report = body as JsonObject;
      const name = (report["metadata"] as { name: string }).name;
      const current = stored.get(name);
      const conflict = () => Promise.reject(Object.assign(new Error("409"), { status: 409 }));
      if (method === "POST" && current !== undefined) return conflict();
      if (
        method === "PUT" &&
        (current?.["metadata"] as JsonObject)["resourceVersion"] !==
          (report["metadata"] as JsonObject)["resourceVersion"]
      )
        return conflict();
      const manager = new URL(path, "https://api").searchParams.get("fieldManager") ?? "unnamed";
      const saved = {
        ...report,
        metadata: {
          ...(report["metadata"] as JsonObject),
          resourceVersion: String(++version),
          managedFields: [{ manager, operation: method === "POST" ? "Create" : "Update" }],
        },
      };
      stored.set(name, saved);
      return Promise.resolve(saved);
    },
  };
  return { client, stored, calls };
}

const rows = (report: JsonObject | undefined) =>
  ((report?.["results"] ?? []) as JsonObject[]).map((r) => `${r["policy"] as string}:${r["result"] as string}`);

test("admission results wait, coalesce per resource (the latest per policy), and land in one report write", async () => {
  const store = fakeReports();
  let now = 1_000_000;
  const writer = new AdmissionReports({ client: store.client, onLog: () => undefined, timer: false, now: () => now });
  writer.submit(configMap(), [validate(ADMISSION_ONLY, configMap())]);
  writer.submit(configMap("a"), [validate(ADMISSION_ONLY, configMap("a")), validate(OPTED_OUT, configMap("a"))]);
  await writer.flush();
  assert.equal(store.stored.size, 0, "nothing is written before the wait");
  now += 2_000;
  await writer.flush();
  assert.deepEqual(rows(store.stored.get("u-1")), ["admission-only:pass"], "one row, the latest, none opted out");
  assert.deepEqual(store.calls, ["GET", "POST"]);
  const report = store.stored.get("u-1") as JsonObject;
  assert.equal(
    (report["metadata"] as { labels: Record<string, string> }).labels["reports.bylaw.dev/managed-by"],
    "bylaw",
  );
  assert.equal((report["results"] as JsonObject[])[0]?.["properties"] !== undefined, true);
  assert.equal(((report["results"] as JsonObject[])[0]?.["properties"] as JsonObject)["process"], "admission review");
  // The same results again: read, unchanged, not written.
  writer.submit(configMap("a"), [validate(ADMISSION_ONLY, configMap("a"))]);
  await writer.flush(true);
  assert.deepEqual(store.calls, ["GET", "POST", "GET"]);
  assert.deepEqual(writer.stats(), { pending: 0, dropped: 0, writes: 1 });
});

test("admission merges into a report a scan wrote, keeping its rows; a conflict is read and merged again", async () => {
  const store = fakeReports();
  const scanned = reconcileReport({
    resource: configMap(),
    responses: [validate(BACKGROUND, configMap())],
    existing: undefined,
    nowMillis: 0,
  });
  assert.ok(scanned.action === "create");
  await store.client.sendJson("POST", "/x/u-1", scanned.report);
  store.calls.length = 0;
  let raced = false;
  const client = {
    getJson: store.client.getJson,
    sendJson: async (method: string, path: string, body: unknown) => {
      if (!raced) {
        raced = true;
        // Another writer updates the report between this writer's read and its write.
        const current = store.stored.get("u-1") as JsonObject;
        await store.client.sendJson("PUT", path, { ...current });
      }
      return store.client.sendJson(method, path, body);
    },
  };
  const writer = new AdmissionReports({ client, onLog: () => undefined, timer: false });
  writer.submit(configMap(), [validate(ADMISSION_ONLY, configMap())]);
  await writer.flush(true);
  assert.deepEqual(rows(store.stored.get("u-1")), ["admission-only:fail", "in-background:fail"]);
  assert.deepEqual(
    store.calls,
    ["GET", "PUT", "PUT", "GET", "PUT"],
    "read, lost to the other write (409), read, written",
  );
  assert.deepEqual((store.stored.get("u-1") as JsonObject)["summary"], {
    pass: 0,
    fail: 2,
    warn: 0,
    error: 0,
    skip: 0,
  });
});

test("a flood of admissions holds at most maxPending resources; the rest are dropped, counted and logged once", async () => {
  const store = fakeReports();
  const logs: string[] = [];
  const writer = new AdmissionReports({
    client: store.client,
    onLog: (_l, m) => logs.push(m),
    timer: false,
    maxPending: 3,
  });
  for (let i = 0; i < 10; i++)
    writer.submit(configMap(undefined, `u-${i}`), [validate(ADMISSION_ONLY, configMap(undefined, `u-${i}`))]);
  // The same resource again coalesces, never counts as new.
  writer.submit(configMap(undefined, "u-0"), [validate(ADMISSION_ONLY, configMap(undefined, "u-0"))]);
  assert.deepEqual(writer.stats(), { pending: 3, dropped: 7, writes: 0 });
  assert.equal(logs.length, 1);
  await writer.flush(true);
  assert.deepEqual([...store.stored.keys()].sort(), ["u-0", "u-1", "u-2"]);
});

test("a scan keeps the admission rows of policies it does not evaluate, and drops those of deleted policies", () => {
  const scan = backgroundPolicies([ADMISSION_ONLY, BACKGROUND]);
  const keep = admissionOnlyPolicyNames([ADMISSION_ONLY, BACKGROUND, OPTED_OUT], scan);
  assert.deepEqual([...keep], ["admission-only"]);
  const existing = reconcileReport({
    resource: configMap(),
    responses: [validate(ADMISSION_ONLY, configMap()), validate(BACKGROUND, configMap())],
    existing: undefined,
    nowMillis: 0,
  });
  assert.ok(existing.action === "create");
  const stored = {
    ...existing.report,
    metadata: { ...(existing.report["metadata"] as JsonObject), resourceVersion: "3" },
  };
  const fixed = configMap("a");
  const rescan = reconcileReport({
    resource: fixed,
    responses: [validate(BACKGROUND, fixed)],
    existing: stored,
    nowMillis: 0,
    keep: (row) => keep.has(row["policy"] as string),
  });
  assert.ok(rescan.action === "update");
  assert.deepEqual(rows(rescan.report), ["admission-only:fail", "in-background:pass"]);
  // The admission-only policy deleted: its row goes, and with no row left the report goes.
  const gone = reconcileReport({
    resource: configMap(),
    responses: [],
    existing: stored,
    nowMillis: 0,
    keep: () => false,
  });
  assert.equal(gone.action, "delete");
});

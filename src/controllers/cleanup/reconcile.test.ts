import { test } from "node:test";
import assert from "node:assert/strict";
import { compileCleanupPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { cleanupDeletions, cleanupStatus, cleanupTiming } from "./reconcile.js";

const engine = createEngine(fakePorts());

function policy(spec: JsonObject, kind = "ClusterCleanupPolicy", namespace?: string): JsonObject {
  return {
    apiVersion: "kyverno.io/v2",
    kind,
    metadata: { name: "p", ...(namespace !== undefined ? { namespace } : {}) },
    spec: { schedule: "*/1 * * * *", ...spec },
  };
}
function compiled(doc: JsonObject) {
  const c = compileCleanupPolicy(doc, engine.env);
  assert.ok(c.ok, JSON.stringify(c));
  return c.value;
}
function pod(name: string, namespace: string, labels: Record<string, string> = {}): JsonObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace, labels }, spec: { containers: [] } };
}
const names = (xs: readonly JsonObject[]): string[] => xs.map((x) => (x["metadata"] as { name: string }).name);
const candidates = (xs: JsonObject[]) => xs.map((resource) => ({ resource, namespaceLabels: {} }));

test("a policy is due once now is past the first run after its last execution (or its creation)", () => {
  const base = { schedule: "*/1 * * * *", creationTimestamp: "2026-01-01T00:00:20Z", lastExecutionTime: undefined };
  assert.deepEqual(cleanupTiming({ ...base, now: Date.parse("2026-01-01T00:00:50Z") }), {
    ok: true,
    due: false,
    executionTime: Date.parse("2026-01-01T00:01:00Z"),
    nextRun: Date.parse("2026-01-01T00:01:00Z"),
  });
  assert.deepEqual(cleanupTiming({ ...base, now: Date.parse("2026-01-01T00:01:01Z") }), {
    ok: true,
    due: true,
    executionTime: Date.parse("2026-01-01T00:01:00Z"),
    nextRun: Date.parse("2026-01-01T00:02:00Z"),
  });
  const ran = { ...base, lastExecutionTime: "2026-01-01T00:01:00Z", now: Date.parse("2026-01-01T00:01:30Z") };
  assert.equal((cleanupTiming(ran) as { due: boolean }).due, false);
});

test("match, exclude and conditions on target decide what is deleted", () => {
  const p = compiled(
    policy({
      match: { any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { doomed: "yes" } } } }] },
      exclude: { any: [{ resources: { names: ["keep-*"] } }] },
      conditions: { all: [{ key: "{{ target.metadata.namespace }}", operator: "NotEquals", value: "kube-system" }] },
    }),
  );
  const r = cleanupDeletions(
    p,
    candidates([
      pod("a", "x", { doomed: "yes" }),
      pod("keep-b", "x", { doomed: "yes" }),
      pod("c", "x"),
      pod("d", "kube-system", { doomed: "yes" }),
      pod("managed", "x", { doomed: "yes", "app.kubernetes.io/managed-by": "kyverno" }),
    ]),
    engine.env,
  );
  assert.deepEqual(names(r.deletions), ["a"]);
  assert.deepEqual(r.errors, []);
});

test("a namespaced CleanupPolicy deletes only in its namespace, whatever its match names", () => {
  const p = compiled(policy({ match: { any: [{ resources: { kinds: ["Pod"] } }] } }, "CleanupPolicy", "tenant-a"));
  assert.deepEqual(p.namespace, "tenant-a");
  const r = cleanupDeletions(p, candidates([pod("a", "tenant-a"), pod("b", "tenant-b")]), engine.env);
  assert.deepEqual(names(r.deletions), ["a"]);
});

test("a condition that cannot be evaluated is an error for that object, never a deletion", () => {
  const p = compiled(
    policy({
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      conditions: { any: [{ key: "{{ target.metadata.nope.deeper }}", operator: "Equals", value: "x" }] },
    }),
  );
  const r = cleanupDeletions(p, candidates([pod("a", "x")]), engine.env);
  assert.deepEqual(r.deletions, []);
  assert.equal(r.errors.length, 1);
});

test("an invalid cleanup policy does not compile: Kyverno's refusal text", () => {
  const c = compileCleanupPolicy(
    policy({ schedule: "every minute", match: { any: [{ resources: { kinds: ["Pod"] } }] } }),
    engine.env,
  );
  assert.equal(c.ok, false);
  assert.match(JSON.stringify(c), /not in proper cron format/);
});

test("the status: lastExecutionTime and a Ready condition whose transition time holds while unchanged", () => {
  const now = Date.parse("2026-01-01T00:05:00.400Z");
  const first = cleanupStatus({
    current: undefined,
    lastExecutionTime: Date.parse("2026-01-01T00:05:00Z"),
    notReady: undefined,
    now,
  });
  assert.deepEqual(first, {
    lastExecutionTime: "2026-01-01T00:05:00Z",
    conditions: [
      {
        type: "Ready",
        status: "True",
        reason: "Succeeded",
        message: "Ready",
        lastTransitionTime: "2026-01-01T00:05:00Z",
      },
    ],
  });
  const later = cleanupStatus({ current: first, lastExecutionTime: undefined, notReady: undefined, now: now + 60_000 });
  assert.deepEqual(later, first);
  const denied = cleanupStatus({
    current: first,
    lastExecutionTime: undefined,
    notReady: { reason: "Forbidden", message: "cannot delete pods" },
    now: now + 60_000,
  });
  assert.equal((denied["conditions"] as JsonObject[])[0]?.["status"], "False");
  assert.equal((denied["conditions"] as JsonObject[])[0]?.["lastTransitionTime"], "2026-01-01T00:06:00Z");
});

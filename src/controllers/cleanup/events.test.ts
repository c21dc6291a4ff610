import { test } from "node:test";
import assert from "node:assert/strict";
import { cleanupEvent, invalidTtlEvent } from "./events.js";

const now = Date.parse("2026-01-01T00:01:00.250Z");
const policy = { kind: "ClusterCleanupPolicy", name: "sweep", namespace: "", uid: "u1" };
const target = { apiVersion: "v1", kind: "Pod", name: "p", namespace: "ns" };

test("a deletion: Kyverno's reason, action and text, from kyverno-cleanup, regarding the policy (in default)", () => {
  const e = cleanupEvent({ policy, target, error: undefined, now, instance: "bylaw-0" });
  assert.equal(e.metadata["namespace"], "default");
  assert.match(e.metadata["name"] as string, /^sweep\.[0-9a-f]+$/);
  assert.equal(e["reason"], "PolicyApplied");
  assert.equal(e["action"], "ResourceCleanedUp");
  assert.equal(e["type"], "Normal");
  assert.equal(e["note"], "successfully cleaned up the target resource Pod/ns/p");
  assert.equal(e["reportingController"], "kyverno-cleanup");
  assert.equal(e["eventTime"], "2026-01-01T00:01:00.250000Z");
  assert.deepEqual(e["regarding"], {
    apiVersion: "kyverno.io/v2",
    kind: "ClusterCleanupPolicy",
    name: "sweep",
    uid: "u1",
  });
  assert.deepEqual(e["related"], target);
});

test("a failed deletion: PolicyError with the server's reason; each Event has its own name", () => {
  const a = cleanupEvent({ policy, target, error: 'pods "p" is forbidden', now, instance: "bylaw-0" });
  const b = cleanupEvent({ policy, target, error: "x", now, instance: "bylaw-0" });
  assert.equal(a["reason"], "PolicyError");
  assert.equal(a["type"], "Warning");
  assert.equal(a["note"], 'failed to clean up the target resource Pod/ns/p: pods "p" is forbidden');
  assert.notEqual(a.metadata["name"], b.metadata["name"]);
});

test("an unreadable TTL label: a Warning on the object, in its namespace", () => {
  const e = invalidTtlEvent({ target, message: "bad label", now, instance: "bylaw-0" });
  assert.equal(e.metadata["namespace"], "ns");
  assert.equal(e["reason"], "InvalidTTL");
  assert.equal(e["note"], "bad label; the object is not deleted");
});

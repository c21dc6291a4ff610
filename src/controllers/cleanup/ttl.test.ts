import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { ttlActions } from "./ttl.js";

const created = "2026-01-01T00:00:00Z";
const now = Date.parse("2026-01-01T00:00:10Z");
function pod(name: string, ttl: string, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "a", creationTimestamp: created, labels: { "cleanup.kyverno.io/ttl": ttl }, ...extra },
  };
}
const names = (xs: readonly { object: JsonObject }[]): string[] =>
  xs.map((x) => (x.object["metadata"] as { name: string }).name);

test("a duration counts from creation; a time is absolute; both in Kyverno's forms", () => {
  const r = ttlActions(
    [
      pod("five-seconds", "5s"),
      pod("one-hour", "1h"),
      pod("two-days", "2d"),
      pod("past-datetime", "2025-12-31T235959Z"),
      pod("past-date", "2025-12-31"),
      pod("future-datetime", "2026-01-01T000020Z"),
    ],
    now,
  );
  assert.deepEqual(names(r.deletions), ["five-seconds", "past-datetime", "past-date"]);
  assert.deepEqual(r.invalid, []);
  assert.equal(r.nextDue, Date.parse("2026-01-01T00:00:20Z"));
});

test("an unparsable label is reported, never deleted; RFC 3339 with colons is not Kyverno's layout", () => {
  const r = ttlActions([pod("bad", "soon"), pod("colons", "2025-01-01T00:00:00Z")], now);
  assert.deepEqual(r.deletions, []);
  assert.deepEqual(names(r.invalid), ["bad", "colons"]);
  assert.match(r.invalid[0]?.message ?? "", /label "soon" is neither a duration/);
});

test("the propagation annotation is passed on; an object being deleted is left alone", () => {
  const r = ttlActions(
    [
      pod("fg", "1s", { annotations: { "cleanup.kyverno.io/propagation-policy": "Foreground" } }),
      pod("going", "1s", { deletionTimestamp: created }),
    ],
    now,
  );
  assert.deepEqual(
    r.deletions.map((d) => d.propagation),
    ["Foreground"],
  );
});

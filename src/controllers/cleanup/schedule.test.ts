import { test } from "node:test";
import assert from "node:assert/strict";
import { nextRun } from "./schedule.js";

const at = (iso: string): number => Date.parse(iso);

test("a five-field schedule fires at its next minute, strictly after the given time", () => {
  assert.deepEqual(nextRun("*/1 * * * *", at("2026-01-01T00:00:30Z")), { ok: true, at: at("2026-01-01T00:01:00Z") });
  assert.deepEqual(nextRun("*/1 * * * *", at("2026-01-01T00:01:00Z")), { ok: true, at: at("2026-01-01T00:02:00Z") });
  assert.deepEqual(nextRun("0 3 * * mon", at("2026-01-01T00:00:00Z")), { ok: true, at: at("2026-01-05T03:00:00Z") });
});

test("descriptors, @every and a zone prefix", () => {
  assert.deepEqual(nextRun("@hourly", at("2026-01-01T00:10:00Z")), { ok: true, at: at("2026-01-01T01:00:00Z") });
  assert.deepEqual(nextRun("@every 90s", at("2026-01-01T00:00:00.500Z")), { ok: true, at: at("2026-01-01T00:01:30Z") });
  assert.deepEqual(nextRun("TZ=Europe/Paris 0 1 * * *", at("2026-01-01T12:00:00Z")), {
    ok: true,
    at: at("2026-01-02T00:00:00Z"),
  });
});

test("an unreadable schedule is an error naming it", () => {
  const r = nextRun("every minute", 0);
  assert.equal(r.ok, false);
  assert.match(r.ok ? "" : r.error, /schedule "every minute"/);
});

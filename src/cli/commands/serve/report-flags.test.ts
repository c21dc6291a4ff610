import assert from "node:assert/strict";
import { test } from "node:test";
import { backgroundScanInterval, backgroundScanWorkers } from "./report-flags.js";

test("--background-scan-interval: a duration, 1h by default", () => {
  assert.deepEqual(backgroundScanInterval({}), { ok: true, value: 3_600_000 });
  assert.deepEqual(backgroundScanInterval({ "background-scan-interval": "30s" }), { ok: true, value: 30_000 });
  const bad = backgroundScanInterval({ "background-scan-interval": "soon" });
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? "" : bad.error, /^--background-scan-interval must be a duration .*"soon"/);
});

test("--background-scan-workers: a whole number from 1 to 256, 8 by default", () => {
  assert.deepEqual(backgroundScanWorkers({}), { ok: true, value: 8 });
  assert.deepEqual(backgroundScanWorkers({ "background-scan-workers": "2" }), { ok: true, value: 2 });
  for (const text of ["0", "1.5", "-3", "many", "1000"]) {
    const r = backgroundScanWorkers({ "background-scan-workers": text });
    assert.equal(r.ok, false, text);
    assert.match(
      r.ok ? "" : r.error,
      new RegExp(`^--background-scan-workers must be a whole number from 1 to 256 \\(got "${text}"\\)`),
    );
  }
});

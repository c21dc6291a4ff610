import { test } from "node:test";
import assert from "node:assert/strict";
import { rowsOfReport, type ReportRow } from "./report-rows.js";
import { timeBuckets } from "./time-buckets.js";

const T0 = 1_764_633_600; // 2025-12-02T00:00:00Z, a whole day

function rows(...results: [number, string][]): ReportRow[] {
  return rowsOfReport("PolicyReport", {
    scope: { kind: "Pod", name: "x" },
    results: results.map(([seconds, result]) => ({
      policy: "p",
      result,
      ...(seconds > 0 ? { timestamp: { seconds } } : {}),
    })),
  });
}

test("results within minutes fall in minute buckets, each counted as failing, passing or other", () => {
  const t = timeBuckets(rows([T0 + 5, "fail"], [T0 + 30, "pass"], [T0 + 70, "error"], [T0 + 190, "warn"], [0, "fail"]));
  assert.equal(t.span, 60);
  assert.equal(t.untimed, 1);
  assert.deepEqual(t.buckets, [
    { start: T0, failing: 1, passing: 1, other: 0 },
    { start: T0 + 60, failing: 1, passing: 0, other: 0 },
    { start: T0 + 120, failing: 0, passing: 0, other: 0 },
    { start: T0 + 180, failing: 0, passing: 0, other: 1 },
  ]);
});

test("the span grows to keep at most 24 buckets: two days of results are in 3-hour buckets", () => {
  const t = timeBuckets(rows([T0, "pass"], [T0 + 2 * 86_400 - 1, "fail"]));
  assert.equal(t.span, 3 * 3600);
  assert.equal(t.buckets.length, 16);
  assert.equal(t.buckets[0]?.start, T0);
  assert.deepEqual(t.buckets.at(-1), { start: T0 + 2 * 86_400 - 3 * 3600, failing: 1, passing: 0, other: 0 });
});

test("beyond 24 weeks the newest 24 weeks are shown and older results join the first bucket", () => {
  const week = 7 * 86_400;
  const t = timeBuckets(rows([T0 - 100 * week, "fail"], [T0, "pass"]));
  assert.equal(t.span, week);
  assert.equal(t.buckets.length, 24);
  assert.equal(t.buckets[0]?.failing, 1);
  assert.equal(t.buckets.at(-1)?.passing, 1);
  assert.equal(
    t.buckets.reduce((n, b) => n + b.failing + b.passing + b.other, 0),
    2,
    "every timed result is counted once",
  );
});

test("no timestamps: no buckets, and the untimed are counted", () => {
  assert.deepEqual(timeBuckets(rows([0, "pass"], [0, "fail"])), { span: 60, buckets: [], untimed: 2 });
  assert.deepEqual(timeBuckets([]), { span: 60, buckets: [], untimed: 0 });
});

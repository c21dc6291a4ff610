import { test } from "node:test";
import assert from "node:assert/strict";
import { difference, histogramBuckets, percentile, quantile, totalCount } from "./histogram.js";

const METRIC = "apiserver_admission_webhook_admission_duration_seconds";
const scrape = (fast: number, slow: number, other: number): string =>
  [
    `# TYPE ${METRIC} histogram`,
    `${METRIC}_bucket{name="validate.bylaw.svc-fail",operation="CREATE",rejected="false",type="validating",le="0.005"} ${fast}`,
    `${METRIC}_bucket{name="validate.bylaw.svc-fail",operation="CREATE",rejected="false",type="validating",le="0.025"} ${fast + slow}`,
    `${METRIC}_bucket{name="validate.bylaw.svc-fail",operation="CREATE",rejected="false",type="validating",le="+Inf"} ${fast + slow}`,
    `${METRIC}_bucket{name="other.example",operation="CREATE",rejected="false",type="validating",le="0.005"} ${other}`,
    `${METRIC}_bucket{name="other.example",operation="CREATE",rejected="false",type="validating",le="0.025"} ${other}`,
    `${METRIC}_bucket{name="other.example",operation="CREATE",rejected="false",type="validating",le="+Inf"} ${other}`,
    `${METRIC}_sum{name="validate.bylaw.svc-fail"} 1`,
  ].join("\n");

test("the difference of two scrapes keeps only the picked series and the calls between them", () => {
  const pick = (l: string): boolean => l.includes('name="validate.bylaw.svc-fail"');
  const d = difference(
    histogramBuckets(scrape(10, 10, 5), METRIC, pick),
    histogramBuckets(scrape(4, 6, 1), METRIC, pick),
  );
  assert.equal(totalCount(d), 10);
  assert.deepEqual(
    [...d.entries()].sort((a, b) => a[0] - b[0]),
    [
      [0.005, 6],
      [0.025, 10],
      [Infinity, 10],
    ],
  );
});

test("a quantile interpolates linearly inside the bucket it falls in and names that bucket", () => {
  const buckets = new Map([
    [0.005, 6],
    [0.025, 10],
    [Infinity, 10],
  ]);
  assert.deepEqual(quantile(buckets, 0.5), { value: (0.005 * 5) / 6, lower: 0, upper: 0.005 });
  const p80 = quantile(buckets, 0.8);
  assert.equal(p80?.lower, 0.005);
  assert.equal(p80?.upper, 0.025);
  assert.ok(Math.abs((p80?.value ?? 0) - 0.015) < 1e-12);
});

test("a quantile in the +Inf bucket is its lower bound; no samples is no quantile", () => {
  assert.deepEqual(
    quantile(
      new Map([
        [0.005, 1],
        [Infinity, 10],
      ]),
      0.99,
    ),
    { value: 0.005, lower: 0.005, upper: Infinity },
  );
  assert.equal(
    quantile(
      new Map([
        [0.005, 0],
        [Infinity, 0],
      ]),
      0.5,
    ),
    undefined,
  );
});

test("percentile is the nearest rank of the samples", () => {
  const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
  assert.equal(percentile(samples, 50), 50);
  assert.equal(percentile(samples, 99), 99);
  assert.ok(Number.isNaN(percentile([], 50)));
});

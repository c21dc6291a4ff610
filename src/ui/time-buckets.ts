/**
 * Results over time, where the reports say when: each PolicyReport result's `timestamp` (when it
 * was last evaluated) counted into at most MAX_BUCKETS equal spans, the span the smallest of a
 * minute, 5 and 15 minutes, an hour, 3 and 6 hours, a day and a week that fits. A report keeps one
 * result per policy, rule and resource, so this shows when the standing results were last made.
 */
import type { ReportRow } from "./report-rows.js";

const MAX_BUCKETS = 24;
const SPANS = [60, 300, 900, 3600, 3 * 3600, 6 * 3600, 86_400, 7 * 86_400] as const;

interface TimeBucket {
  /** The span's start, in seconds since the epoch. */
  readonly start: number;
  /** Failing (fail and error), passing (pass) and the rest (warn, skip), in the span. */
  readonly failing: number;
  readonly passing: number;
  readonly other: number;
}

interface Timeline {
  /** The span of each bucket, in seconds. */
  readonly span: number;
  readonly buckets: readonly TimeBucket[];
  /** Rows with no timestamp, which no bucket holds. */
  readonly untimed: number;
}

export function timeBuckets(rows: readonly ReportRow[]): Timeline {
  const timed = rows.filter((r) => r.time > 0);
  const untimed = rows.length - timed.length;
  if (timed.length === 0) return { span: SPANS[0], buckets: [], untimed };
  let min = Infinity;
  let max = -Infinity;
  for (const r of timed) {
    min = Math.min(min, r.time);
    max = Math.max(max, r.time);
  }
  const span = SPANS.find((s) => Math.floor(max / s) - Math.floor(min / s) < MAX_BUCKETS) ?? 7 * 86_400;
  const last = Math.floor(max / span);
  const count = Math.min(MAX_BUCKETS, last - Math.floor(min / span) + 1);
  const first = last - count + 1;
  const buckets = Array.from({ length: count }, (_, i) => ({
    start: (first + i) * span,
    failing: 0,
    passing: 0,
    other: 0,
  }));
  for (const r of timed) {
    // Past 24 weeks, the oldest results share the first bucket.
    const b = buckets[Math.max(0, Math.floor(r.time / span) - first)];
    if (b === undefined) continue;
    if (r.result === "fail" || r.result === "error") b.failing++;
    else if (r.result === "pass") b.passing++;
    else b.other++;
  }
  return { span, buckets, untimed };
}

/**
 * Prometheus text helpers for the cluster bench: the buckets of one histogram summed over the
 * series a label filter picks, the difference of two scrapes, and a quantile by linear
 * interpolation inside the bucket it falls in (as histogram_quantile does). Plus exact percentiles
 * of client-side samples.
 */

/** Cumulative bucket counts by upper bound (`+Inf` as Infinity), summed over matching series. */
export type Buckets = Map<number, number>;

export function histogramBuckets(text: string, metric: string, keep: (labels: string) => boolean): Buckets {
  const out: Buckets = new Map();
  const prefix = `${metric}_bucket{`;
  for (const line of text.split("\n")) {
    if (!line.startsWith(prefix)) continue;
    const close = line.lastIndexOf("}");
    const labels = line.slice(prefix.length, close);
    if (!keep(labels)) continue;
    const le = /(?:^|,)le="([^"]+)"/.exec(labels)?.[1];
    if (le === undefined) continue;
    const bound = le === "+Inf" ? Infinity : Number(le);
    out.set(bound, (out.get(bound) ?? 0) + Number(line.slice(close + 1).trim()));
  }
  return out;
}

export function difference(after: Buckets, before: Buckets): Buckets {
  const out: Buckets = new Map();
  for (const [le, n] of after) out.set(le, n - (before.get(le) ?? 0));
  return out;
}

export interface Quantile {
  readonly value: number;
  /** The bucket the quantile fell in: its lower and upper bound. */
  readonly lower: number;
  readonly upper: number;
}

/** The q-quantile by linear interpolation within its bucket; undefined when there are no samples. */
export function quantile(buckets: Buckets, q: number): Quantile | undefined {
  const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [upper, count] of sorted) {
    if (count >= rank) {
      if (upper === Infinity) return { value: lower, lower, upper };
      const inBucket = count - below;
      const value = inBucket <= 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
      return { value, lower, upper };
    }
    lower = upper;
    below = count;
  }
  return undefined;
}

export function totalCount(buckets: Buckets): number {
  return Math.max(0, ...buckets.values());
}

/** The p-th percentile (0–100) of samples, nearest rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

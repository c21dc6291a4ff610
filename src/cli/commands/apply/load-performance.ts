/**
 * `kyverno apply --cluster --show-performance` (v1.19, pkg/cli/loader printLoadingSummary): how
 * loading the cluster's objects went, in Kyverno's words. Bylaw lists every kind at once, so its
 * workers are the lists it ran side by side; its API calls are the list requests (each page one).
 */
import { formatDuration } from "../../../engine/index.js";

export interface LoadReport {
  /** Wall time of the loading, in nanoseconds. */
  readonly durationNs: bigint;
  readonly loaded: number;
  readonly apiCalls: number;
  readonly workers: number;
  readonly errors: readonly { readonly type: string; readonly error: string }[];
}

/** Kyverno's lines: a blank line, `Resource Loading Performance:`, then the figures (the estimate only when it is positive). */
export function renderLoadReport(r: LoadReport): string {
  const lines = [
    "",
    "Resource Loading Performance:",
    `  Duration: ${formatDuration(r.durationNs)}`,
    `  Resources loaded: ${r.loaded}`,
    `  API calls: ${r.apiCalls}`,
    `  Concurrent workers: ${r.workers}`,
  ];
  if (r.errors.length > 0) {
    lines.push(`  Errors: ${r.errors.length}`);
    for (const e of r.errors) lines.push(`    - ${e.type}: ${e.error}`);
  }
  // Kyverno's estimate: 300ms for each call made one after the other.
  const sequential = BigInt(r.apiCalls) * 300_000_000n;
  if (sequential > r.durationNs) {
    const improvement = (Number(sequential - r.durationNs) / Number(sequential)) * 100;
    lines.push(`  Estimated improvement: ${improvement.toFixed(1)}% faster than sequential`);
  }
  return lines.join("\n");
}

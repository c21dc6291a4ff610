/**
 * Loki's documented ingestion limits (its defaults; monitoring.md §3.4), checked before an entry is
 * queued: a receiver that enforces fewer of them (VictoriaLogs) must not hide a push a real Loki
 * would reject. Each problem names the label or field and the limit.
 */
import type { LokiEntry } from "./loki-stream.js";

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const MAX_LABELS = 15;
const MAX_LABEL_NAME_BYTES = 1024;
const MAX_LABEL_VALUE_BYTES = 2048;
const MAX_LINE_BYTES = 256 * 1024;
const MAX_METADATA_ENTRIES = 128;
const MAX_METADATA_BYTES = 64 * 1024;
const WEEK_NS = 7n * 24n * 3600n * 1_000_000_000n;
const GRACE_NS = 10n * 60n * 1_000_000_000n;

const bytes = (s: string): number => Buffer.byteLength(s, "utf8");

/** What Loki would reject in a stream's label set; empty when it accepts it. */
export function labelProblems(labels: Readonly<Record<string, string>>): string[] {
  const names = Object.keys(labels);
  const problems: string[] = [];
  if (names.length === 0) problems.push("a stream needs at least one label (Loki: missing_labels)");
  if (names.length > MAX_LABELS) problems.push(`${names.length} labels; Loki accepts at most ${MAX_LABELS}`);
  for (const name of names) {
    if (!LABEL_NAME.test(name) || name.startsWith("__"))
      problems.push(`label name ${JSON.stringify(name)} is not [a-zA-Z_][a-zA-Z0-9_]* (or starts with __)`);
    if (bytes(name) > MAX_LABEL_NAME_BYTES)
      problems.push(`label name ${name.slice(0, 40)}… is longer than ${MAX_LABEL_NAME_BYTES} bytes`);
    if (bytes(labels[name] ?? "") > MAX_LABEL_VALUE_BYTES)
      problems.push(`label ${name}'s value is longer than ${MAX_LABEL_VALUE_BYTES} bytes`);
  }
  return problems;
}

/** What Loki would reject in one entry at `nowNs`; empty when it accepts it. */
export function entryProblems(entry: LokiEntry, nowNs: bigint): string[] {
  const problems: string[] = [];
  if (entry.timestampNs < nowNs - WEEK_NS)
    problems.push("the entry is older than a week (Loki: greater_than_max_sample_age)");
  if (entry.timestampNs > nowNs + GRACE_NS)
    problems.push("the entry is more than 10 minutes in the future (Loki: too_far_in_future)");
  if (bytes(entry.line) > MAX_LINE_BYTES)
    problems.push(`the line is longer than ${MAX_LINE_BYTES} bytes (Loki: line_too_long)`);
  const metadata = Object.entries(entry.metadata ?? {});
  if (metadata.length > MAX_METADATA_ENTRIES)
    problems.push(`${metadata.length} structured metadata entries; Loki accepts at most ${MAX_METADATA_ENTRIES}`);
  const size = metadata.reduce((n, [k, v]) => n + bytes(k) + bytes(v), 0);
  if (size > MAX_METADATA_BYTES)
    problems.push(`structured metadata of ${size} bytes; Loki accepts at most ${MAX_METADATA_BYTES}`);
  return problems;
}

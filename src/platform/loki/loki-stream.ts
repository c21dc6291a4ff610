/** What Bylaw sends to Loki: streams (a label set) of entries (a time, a line, structured metadata). */

/** One log line: its time in Unix nanoseconds, the text, and optional structured metadata. */
export interface LokiEntry {
  readonly timestampNs: bigint;
  readonly line: string;
  /** Loki's structured metadata: per-line key/values that are not stream labels. */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** The entries of one stream, in the order they were pushed. */
export interface LokiStream {
  readonly labels: Readonly<Record<string, string>>;
  readonly entries: readonly LokiEntry[];
}

/** A Unix time in milliseconds (e.g. Date.now()) as nanoseconds. */
export function nanosOf(millis: number): bigint {
  return BigInt(Math.trunc(millis)) * 1_000_000n;
}

/** A label set as LogQL writes it, names sorted: {a="x", b="y \"q\""}. Protobuf pushes carry it so. */
export function labelSetText(labels: Readonly<Record<string, string>>): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((name) => `${name}=${JSON.stringify(labels[name] ?? "")}`);
  return `{${pairs.join(", ")}}`;
}

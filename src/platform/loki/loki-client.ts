/**
 * Bylaw's one Loki push client. Entries are checked against Loki's limits, queued in a bounded
 * buffer and sent in batches (JSON, or protobuf with snappy), one push at a time, oldest first.
 * A push Loki does not answer, or answers 429 or 5xx, is sent again after a backoff that doubles up
 * to a ceiling; nothing is lost while the buffer holds. When the buffer is full a new entry is
 * dropped and counted (bylaw_loki_entries_dropped_total{reason="buffer_full"}), as are entries Loki
 * refuses (reason "refused"), entries it would refuse ("invalid") and entries still held when
 * close() gives up ("shutdown").
 */
import { Counter, Gauge, type Registry } from "prom-client";
import { jsonPushBody } from "./json-body.js";
import { entryProblems, labelProblems } from "./loki-limits.js";
import { labelSetText, nanosOf, type LokiEntry, type LokiStream } from "./loki-stream.js";
import { postPush, type LokiConnection } from "./push-connection.js";
import { protobufPushBody } from "./protobuf-body.js";

export type LokiEncoding = "json" | "protobuf";
type DropReason = "buffer_full" | "invalid" | "refused" | "shutdown";

interface LokiClientOptions {
  readonly connection: LokiConnection;
  /** protobuf (snappy) is Loki's default; json is easier to read on the wire. */
  readonly encoding?: LokiEncoding;
  /** Most entries in one push (default 1000) and most bytes of lines (default 1 MiB). */
  readonly batchEntries?: number;
  readonly batchBytes?: number;
  /** How long an entry may wait for a fuller batch (default 1000 ms). */
  readonly batchWaitMs?: number;
  /** The most entries held, the one being sent included (default 10000); beyond it new ones are dropped. */
  readonly bufferEntries?: number;
  /** The first retry's wait (default 500 ms), doubled each time up to maxMs (default 30 s). */
  readonly backoff?: { readonly minMs: number; readonly maxMs: number };
  /** Where the sent and dropped counters register (none: counted in stats() only). */
  readonly registry?: Registry;
  /** Told each failed push and each drop, with the reason. */
  readonly onProblem?: (message: string) => void;
}

interface LokiClientStats {
  readonly sent: number;
  readonly pending: number;
  readonly dropped: Readonly<Record<DropReason, number>>;
  readonly retries: number;
}

interface Queued {
  readonly labels: Readonly<Record<string, string>>;
  readonly key: string;
  readonly entry: LokiEntry;
  readonly bytes: number;
}

interface ClientMetrics {
  sent?: Counter;
  dropped?: Counter<"reason">;
  failed?: Counter;
  pending?: Gauge;
}

function counters(registry: Registry | undefined): ClientMetrics {
  if (registry === undefined) return {};
  const existing = (name: string): Counter | undefined => registry.getSingleMetric(name) as Counter | undefined;
  return {
    failed:
      existing("bylaw_loki_push_failures_total") ??
      new Counter({
        name: "bylaw_loki_push_failures_total",
        help: "Pushes to Loki that failed (no answer, 429 or 5xx) and are sent again after a backoff.",
        registers: [registry],
      }),
    pending:
      (registry.getSingleMetric("bylaw_loki_entries_pending") as Gauge | undefined) ??
      new Gauge({
        name: "bylaw_loki_entries_pending",
        help: "Log entries held for Loki, not yet accepted (the buffer; bounded, past it entries are dropped).",
        registers: [registry],
      }),
    sent:
      existing("bylaw_loki_entries_sent_total") ??
      new Counter({ name: "bylaw_loki_entries_sent_total", help: "Log entries Loki accepted.", registers: [registry] }),
    dropped:
      (existing("bylaw_loki_entries_dropped_total") as Counter<"reason"> | undefined) ??
      new Counter({
        name: "bylaw_loki_entries_dropped_total",
        help: "Log entries not delivered to Loki, by reason: buffer_full, invalid, refused, shutdown.",
        labelNames: ["reason"] as const,
        registers: [registry],
      }),
  };
}

/** Groups a batch's entries by label set, keeping their order. */
function streamsOf(batch: readonly Queued[]): LokiStream[] {
  const byKey = new Map<string, { labels: Readonly<Record<string, string>>; entries: LokiEntry[] }>();
  for (const q of batch) {
    const s = byKey.get(q.key) ?? { labels: q.labels, entries: [] };
    s.entries.push(q.entry);
    byKey.set(q.key, s);
  }
  return [...byKey.values()];
}

function encodePush(streams: readonly LokiStream[], encoding: LokiEncoding) {
  return encoding === "json"
    ? { contentType: "application/json", bytes: jsonPushBody(streams) }
    : { contentType: "application/x-protobuf", bytes: protobufPushBody(streams) };
}

export class LokiClient {
  readonly #o: Required<Omit<LokiClientOptions, "registry">>;
  readonly #queue: Queued[] = [];
  readonly #metrics: ClientMetrics;
  readonly #dropped: Record<DropReason, number> = { buffer_full: 0, invalid: 0, refused: 0, shutdown: 0 };
  #sent = 0;
  #retries = 0;
  #timer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;
  #sending = false;
  /** Whether entries have been dropped for a full buffer since Loki last took a batch. */
  #full = false;
  #flushing = false;
  #closed = false;
  #idle: (() => void)[] = [];

  constructor(options: LokiClientOptions) {
    this.#o = {
      connection: options.connection,
      encoding: options.encoding ?? "protobuf",
      batchEntries: options.batchEntries ?? 1000,
      batchBytes: options.batchBytes ?? 1024 * 1024,
      batchWaitMs: options.batchWaitMs ?? 1000,
      bufferEntries: options.bufferEntries ?? 10_000,
      backoff: options.backoff ?? { minMs: 500, maxMs: 30_000 },
      onProblem: options.onProblem ?? (() => undefined),
    };
    this.#metrics = counters(options.registry);
  }

  /** Queues one entry; the reason it was dropped instead, if it was. */
  push(labels: Readonly<Record<string, string>>, entry: LokiEntry): string | undefined {
    if (this.#closed) return this.#drop("shutdown", 1, "the Loki client is closed");
    const problems = [...labelProblems(labels), ...entryProblems(entry, nanosOf(Date.now()))];
    if (problems.length > 0) return this.#drop("invalid", 1, `Loki would refuse the entry: ${problems.join("; ")}`);
    if (this.#queue.length >= this.#o.bufferEntries)
      return this.#drop("buffer_full", 1, `the buffer holds ${this.#o.bufferEntries} entries already`);
    this.#queue.push({ labels, key: labelSetText(labels), entry, bytes: Buffer.byteLength(entry.line) });
    this.#metrics.pending?.inc();
    this.#schedule();
    return undefined;
  }

  stats(): LokiClientStats {
    return { sent: this.#sent, pending: this.#queue.length, dropped: { ...this.#dropped }, retries: this.#retries };
  }

  /** Sends everything held now; resolves when the buffer is empty. */
  flush(): Promise<void> {
    if (this.#queue.length === 0 && !this.#sending) return Promise.resolve();
    this.#flushing = true;
    const idle = new Promise<void>((resolve) => this.#idle.push(resolve));
    this.#kick();
    return idle;
  }

  /** Flushes for at most `timeoutMs`, then drops (and counts) what is still held and stops. */
  async close(timeoutMs: number): Promise<LokiClientStats> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([this.flush(), gaveUp]);
    clearTimeout(timer);
    this.#closed = true;
    clearTimeout(this.#timer);
    const left = this.#queue.splice(0).length;
    this.#metrics.pending?.dec(left);
    if (left > 0) this.#drop("shutdown", left, `${left} entries were still unsent after ${timeoutMs} ms`);
    this.#wake?.();
    this.#settleIdle();
    return this.stats();
  }

  #drop(reason: DropReason, count: number, message: string): string {
    this.#dropped[reason] += count;
    this.#metrics.dropped?.inc({ reason }, count);
    // A full buffer drops every new entry until Loki takes some: told once, not once per entry.
    if (reason !== "buffer_full" || !this.#full)
      this.#o.onProblem(
        reason === "buffer_full"
          ? `dropping new log entries until Loki takes some (counted in bylaw_loki_entries_dropped_total{reason="buffer_full"}): ${message}`
          : `dropped ${count} log entries (${reason}): ${message}`,
      );
    if (reason === "buffer_full") this.#full = true;
    return message;
  }

  #batchReady(): boolean {
    return this.#flushing || this.#queue.length >= this.#o.batchEntries;
  }

  #schedule(): void {
    if (this.#sending) return;
    if (this.#batchReady()) this.#kick();
    else this.#timer ??= setTimeout(() => this.#kick(), this.#o.batchWaitMs);
  }

  #kick(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // While sending (or waiting to retry) the loop goes on by itself, and sends all when flushing.
    if (this.#sending) return;
    this.#sending = true;
    void this.#sendAll();
  }

  #takeBatch(): Queued[] {
    let bytes = 0;
    let n = 0;
    for (const q of this.#queue) {
      if (n >= this.#o.batchEntries || (n > 0 && bytes + q.bytes > this.#o.batchBytes)) break;
      bytes += q.bytes;
      n++;
    }
    return this.#queue.slice(0, n);
  }

  async #sendAll(): Promise<void> {
    let attempt = 0;
    while (!this.#closed && this.#queue.length > 0) {
      const batch = this.#takeBatch();
      const outcome = await postPush(this.#o.connection, encodePush(streamsOf(batch), this.#o.encoding));
      if (this.#closed) break;
      if (outcome.kind === "retry") {
        this.#retries++;
        this.#metrics.failed?.inc();
        this.#o.onProblem(`Loki push of ${batch.length} entries failed, retrying: ${outcome.reason}`);
        await this.#backoff(attempt++);
        continue;
      }
      attempt = 0;
      this.#queue.splice(0, batch.length);
      this.#metrics.pending?.dec(batch.length);
      if (outcome.kind === "refused") this.#drop("refused", batch.length, outcome.reason);
      else {
        this.#sent += batch.length;
        this.#full = false;
        this.#metrics.sent?.inc(batch.length);
      }
      if (!this.#batchReady() && this.#queue.length > 0) break;
    }
    this.#sending = false;
    if (this.#queue.length === 0) this.#settleIdle();
    else if (!this.#closed) this.#schedule();
  }

  #backoff(attempt: number): Promise<void> {
    const { minMs, maxMs } = this.#o.backoff;
    const wait = Math.min(maxMs, minMs * 2 ** attempt) * (0.75 + Math.random() * 0.5);
    return new Promise((resolve) => {
      const t = setTimeout(resolve, wait);
      this.#wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  #settleIdle(): void {
    this.#flushing = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}

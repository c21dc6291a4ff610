/**
 * Isomorphic Events as client-go's events.k8s.io/v1 broadcaster records them (Kyverno's recorders,
 * `k8s.io/client-go/tools/events`): Events with the same action, reason, reporting controller,
 * regarding and related object are one Event. The first is created; the second makes it a series
 * (`series.count` 2, written at once); later ones only count, and the count is written when the
 * series ends (nothing of its kind for 6 minutes) and every 30 minutes while it goes on. So a Pod
 * failing five rules at admission gets one PolicyViolation Event with a count, as under Kyverno, not
 * five. A series whose Event is gone (deleted, expired) is created again with its count.
 *
 * What is remembered is bounded (`maxRemembered`): past it a new kind of Event is created and not
 * remembered, so a flood of distinct Events never grows memory. Singletons are forgotten after 6
 * minutes, as client-go forgets them.
 */
import { isObject } from "../../engine/index.js";
import { microTime, type KubeEvent } from "./event-object.js";

/** What the series write: the Event's create, and the merge patch of its series. */
interface SeriesSink {
  create(event: KubeEvent): Promise<void>;
  /** Writes `series` on the stored Event; throws the client's error (its `status` 404 when the Event is gone). */
  patchSeries(event: KubeEvent, series: { readonly count: number; readonly lastObservedTime: string }): Promise<void>;
}

/** client-go's finishTime and refreshTime. */
export const SERIES_FINISH_MS = 6 * 60_000;
export const SERIES_REFRESH_MS = 30 * 60_000;

interface Remembered {
  readonly event: KubeEvent;
  readonly firstMs: number;
  /** The create, settled: a series write waits for it (two workers post at once), so it never patches an Event not written yet. */
  readonly created: Promise<unknown>;
  /** Set from the second Event of the kind on. */
  series?: { count: number; lastMs: number; writtenMs: number };
}

export class EventSeries {
  readonly #sink: SeriesSink;
  readonly #now: () => number;
  readonly #max: number;
  readonly #remembered = new Map<string, Remembered>();

  constructor(o: { readonly sink: SeriesSink; readonly now: () => number; readonly maxRemembered?: number }) {
    this.#sink = o.sink;
    this.#now = o.now;
    this.#max = o.maxRemembered ?? 2048;
  }

  /** Kinds of Event remembered now. */
  get remembered(): number {
    return this.#remembered.size;
  }

  /** Records one Event: created, made a series (the second of its kind), or counted. */
  record(event: KubeEvent): Promise<void> {
    const key = isomorphicKey(event);
    const now = this.#now();
    const known = this.#remembered.get(key);
    if (known === undefined) {
      const created = this.#sink.create(event);
      if (this.#remembered.size < this.#max)
        this.#remembered.set(key, { event, firstMs: now, created: created.catch(() => undefined) });
      return created;
    }
    if (known.series !== undefined) {
      known.series.count++;
      known.series.lastMs = now;
      return Promise.resolve();
    }
    known.series = { count: 2, lastMs: now, writtenMs: now };
    return this.#write(known);
  }

  /**
   * Ends the series not seen for 6 minutes (their last count written) and forgets the singletons as
   * old; writes the count of a series that goes on when it was last written 30 minutes ago. Run
   * every few minutes; a write that fails is left to `onError`.
   */
  async sweep(onError: (e: unknown) => void = () => undefined): Promise<void> {
    const now = this.#now();
    const writes: Promise<void>[] = [];
    for (const [key, r] of this.#remembered) {
      const s = r.series;
      if (s === undefined) {
        if (r.firstMs <= now - SERIES_FINISH_MS) this.#remembered.delete(key);
        continue;
      }
      if (s.lastMs <= now - SERIES_FINISH_MS) {
        this.#remembered.delete(key);
        if (s.writtenMs < s.lastMs) writes.push(this.#write(r).catch(onError));
      } else if (s.writtenMs <= now - SERIES_REFRESH_MS) {
        s.writtenMs = now;
        writes.push(this.#write(r).catch(onError));
      }
    }
    await Promise.all(writes);
  }

  /** Forgets everything (the process stops). */
  clear(): void {
    this.#remembered.clear();
  }

  async #write(r: Remembered): Promise<void> {
    const s = r.series;
    if (s === undefined) return;
    s.writtenMs = Math.max(s.writtenMs, s.lastMs);
    const series = { count: s.count, lastObservedTime: microTime(s.lastMs) };
    await r.created;
    try {
      await this.#sink.patchSeries(r.event, series);
    } catch (e) {
      if ((e as { status?: unknown }).status !== 404) throw e;
      await this.#sink.create({ ...r.event, series });
    }
  }
}

/** client-go's key: action, reason, reporting controller, regarding and related (the note is no part of it). */
function isomorphicKey(event: KubeEvent): string {
  const ref = (v: unknown): unknown[] =>
    isObject(v) ? [v["apiVersion"], v["kind"], v["namespace"], v["name"], v["uid"], v["fieldPath"]] : [];
  return JSON.stringify([
    event["action"],
    event["reason"],
    event["reportingController"],
    ref(event["regarding"]),
    ref(event["related"]),
  ]);
}

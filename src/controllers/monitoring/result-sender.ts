/**
 * Sends each new report result to Loki once (Policy Reporter's "new result" targets): it keeps, per
 * report, the ids of the results already seen (result-lines.ts), and on a change sends only the
 * results whose id is new. Results present at the first list are taken as seen, not sent (Policy
 * Reporter's `skipExistingOnStartup`); a relist (410 Gone) sends what changed meanwhile. A deleted
 * report forgets its ids, so what it held costs nothing after.
 */
import { isObject, type JsonObject } from "../../engine/index.js";
import type { LokiEntry } from "../../platform/loki/index.js";
import type { ResultFilter } from "./result-filter.js";
import { resultLines } from "./result-lines.js";
import { sourceName, type MonitoredSource } from "./sources.js";

interface ResultSenderOptions {
  readonly push: (labels: Readonly<Record<string, string>>, entry: LokiEntry) => void;
  readonly extraLabels: Readonly<Record<string, string>>;
  readonly now: () => number;
  /** Which results are sent (Policy Reporter's target filters); one left out is not remembered either. */
  readonly filter?: ResultFilter | undefined;
}

function keyOf(source: MonitoredSource, o: JsonObject): string {
  const m = o["metadata"];
  const part = (k: string): string => (isObject(m) && typeof m[k] === "string" ? m[k] : "");
  return `${sourceName(source.gvr)}/${part("namespace")}/${part("name")}`;
}

export class ResultSender {
  readonly #seen = new Map<string, ReadonlySet<string>>();
  readonly #listedOnce = new Set<MonitoredSource>();

  constructor(private readonly o: ResultSenderOptions) {}

  /** A report added or changed: its new results are sent. */
  changed(source: MonitoredSource, report: JsonObject): void {
    this.#take(source, report, true);
  }

  deleted(source: MonitoredSource, report: JsonObject): void {
    this.#seen.delete(keyOf(source, report));
  }

  /** A full list of the source: the first one is taken as seen; later ones send what is new. */
  listed(source: MonitoredSource, reports: readonly JsonObject[]): void {
    const send = this.#listedOnce.has(source);
    this.#listedOnce.add(source);
    const prefix = `${sourceName(source.gvr)}/`;
    const present = new Set(reports.map((r) => keyOf(source, r)));
    for (const key of this.#seen.keys()) if (key.startsWith(prefix) && !present.has(key)) this.#seen.delete(key);
    for (const r of reports) this.#take(source, r, send);
  }

  /** Results remembered (for the bench and tests). */
  get remembered(): number {
    let n = 0;
    for (const ids of this.#seen.values()) n += ids.size;
    return n;
  }

  #take(source: MonitoredSource, report: JsonObject, send: boolean): void {
    const key = keyOf(source, report);
    const before = this.#seen.get(key);
    const lines = resultLines(report, source.family, key, {
      extraLabels: this.o.extraLabels,
      nowMs: this.o.now(),
      filter: this.o.filter,
    });
    const ids = new Set<string>();
    for (const l of lines) {
      if (ids.has(l.id)) continue;
      ids.add(l.id);
      if (send && before?.has(l.id) !== true) this.o.push(l.labels, l.entry);
    }
    this.#seen.set(key, ids);
  }
}

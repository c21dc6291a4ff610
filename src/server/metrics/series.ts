/**
 * Histograms for the hot path. prom-client hashes and validates the label object on every
 * `observe` (about 2 µs with Kyverno's 13 labels); here a series is found by one Map lookup on its
 * joined label values, and the text is only built when Prometheus scrapes. Kyverno records a
 * counter and a histogram with the same labels for every event, so a CountView exposes each
 * series' observation count as that counter: one lookup feeds the pair.
 * Both register in a prom-client Registry, so `/metrics` serves them with the rest.
 */
import type { Metric, Registry } from "prom-client";
import { boundLabelValue, OVERFLOW_LABEL } from "./label-bounds.js";
import { RenderLane, SeriesBudget, seriesCost } from "./series-budget.js";

export { RenderLane, SeriesBudget };

/** Kyverno's default histogram buckets (spec §10). */
export const KYVERNO_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 25, 30,
];

/** One exposed sample, in the shape prom-client's Registry formats. */
interface Sample {
  readonly value: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly metricName?: string;
}

interface Exposed {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly aggregator: "sum";
  readonly values: readonly Sample[];
}

/** Called when a family is full and a new label set is refused (protects memory from label floods). */
export type OnSeriesDropped = (family: string) => void;

/** A level of the scoped lookup: more levels, or cells at the last one. */
type Level = Map<string, Level> | Cell;

/** How many recently used cells a scope remembers with their keys. */
const RECENT = 8;

/** The cells of one scope: the keyed levels, and the last few cells used with their keys. */
interface Scoped {
  readonly levels: Map<string, Level>;
  /**
   * A review's results nearly always repeat the previous review's (same labels, rule, result), so
   * a hit here is a few identity comparisons of strings instead of one map lookup per key.
   */
  readonly recentKeys: (readonly string[])[];
  readonly recentCells: Cell[];
  /** Where the next remembered cell goes (the oldest is replaced). */
  next: number;
}

interface Cell {
  readonly labels: Readonly<Record<string, string>>;
  /** Per-bucket (not cumulative) counts; the last slot is above the highest bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** prom-client's Registry takes any object with name/help/type/get/reset, though its types name only its own classes. */
function register<T extends { readonly name: string }>(registry: Registry, metric: T): T {
  registry.registerMetric(metric as unknown as Metric);
  return metric;
}

export class HistogramFamily {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly series = new Map<string, Cell>();
  /** Stands, in the scoped lookups, for a label set the family refused; never rendered. */
  private readonly refused: Cell = { labels: {}, counts: new Float64Array(0), sum: 0, count: 0 };
  /** Cells by a scope object (e.g. a policy) and the rest of the values: short keys on the hot path. */
  private scoped = new WeakMap<object, Scoped>();
  private readonly bounds: readonly number[];
  private readonly le: readonly string[];
  /** Counters that render this family's counts (one line per series each), for the size estimate. */
  private views = 0;
  /** Bytes taken from the budget by this family's series. */
  private taken = 0;
  private readonly overflowAt: readonly number[];

  constructor(
    // prom-client's Registry rewrites `name` in OpenMetrics mode, so it stays writable.
    public name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    buckets: readonly number[],
    private readonly maxSeries: number,
    private readonly onDropped: OnSeriesDropped,
    private readonly budget: SeriesBudget = new SeriesBudget(Number.POSITIVE_INFINITY),
    /**
     * Labels fed by the request (e.g. resource_namespace). A new label set that finds the family
     * full is folded into the series with these set to OVERFLOW_LABEL (from the budget's reserve),
     * so totals stay right; it is dropped only when that series cannot be made either.
     */
    overflowLabels: readonly string[] = [],
    /** Shared by the families of one registry, so that they render in turns. */
    readonly lane: RenderLane = new RenderLane(),
  ) {
    this.overflowAt = overflowLabels.map((l) => labelNames.indexOf(l)).filter((i) => i >= 0);
    this.bounds = [...new Set(buckets.filter((b) => Number.isFinite(b)))].sort((a, b) => a - b);
    this.le = this.bounds.map((b) => String(b));
  }

  register(registry: Registry): this {
    return register(registry, this);
  }

  /** A counter named `name` whose series are this histogram's observation counts. Register it too. */
  countAs(name: string, help: string): CountView {
    this.views += 1;
    return new CountView(name, help, this);
  }

  /**
   * Records one value for the label values given in `labelNames` order. A negative or non-finite
   * value (a bad clock) counts as 0 so it cannot poison the sum.
   */
  observe(values: readonly string[], value: number): void {
    const c = this.cell(values);
    if (c !== undefined) this.add(c, value);
  }

  private add(c: Cell, value: number): void {
    const v = value > 0 && Number.isFinite(value) ? value : 0;
    let i = 0;
    while (i < this.bounds.length && v > (this.bounds[i] as number)) i++;
    c.counts[i] = (c.counts[i] ?? 0) + 1;
    c.sum += v;
    c.count += 1;
  }

  /**
   * Records `value` in the cell of `keys` under `scope` (an object that stands for fixed label
   * values, e.g. a policy's). The cell is found through one small map per key, so no key string is
   * built per call: this runs once per policy result. Returns false when the cell does not exist
   * yet; the caller then gives the full label values to `observeNew`.
   */
  observeKeyed(scope: object, keys: readonly string[], value: number): boolean {
    const s = this.scoped.get(scope);
    if (s === undefined) return false;
    let c = recentCell(s, keys);
    if (c === undefined) {
      c = leafLevel(s, keys)?.get(keys[keys.length - 1] ?? "") as Cell | undefined;
      if (c === undefined) return false;
      remember(s, keys, c);
    }
    if (c === this.refused) this.onDropped(this.name);
    else this.add(c, value);
    return true;
  }

  /** The first observation of `keys` under `scope`: creates its cell with `labelValues` (in `labelNames` order). */
  observeNew(scope: object, keys: readonly string[], labelValues: readonly string[], value: number): void {
    // A refused label set is remembered too, so its later observations are dropped (and counted) at
    // once instead of bounding, joining and costing its labels again for every result.
    const c = this.cell(labelValues) ?? this.refused;
    let s = this.scoped.get(scope);
    if (s === undefined) {
      s = { levels: new Map<string, Level>(), recentKeys: [], recentCells: [], next: 0 };
      this.scoped.set(scope, s);
    }
    let level = s.levels;
    for (let i = 0; i < keys.length - 1; i++) {
      const k = keys[i] as string;
      let next = level.get(k) as Map<string, Level> | undefined;
      if (next === undefined) {
        next = new Map<string, Level>();
        level.set(k, next);
      }
      level = next;
    }
    level.set(keys[keys.length - 1] ?? "", c);
    remember(s, keys, c);
    if (c !== this.refused) this.add(c, value);
  }

  /** What prom-client's Registry reads when it renders `/metrics`. */
  async get(): Promise<Exposed> {
    // Each family renders in its own turn of the event loop, so reviews waiting on I/O are served
    // between families instead of after the whole scrape.
    await this.lane.turn();
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const c of this.series.values()) {
      let cumulative = 0;
      this.le.forEach((le, i) => {
        cumulative += c.counts[i] ?? 0;
        values.push({ metricName: bucket, labels: { ...c.labels, le }, value: cumulative });
      });
      values.push({ metricName: bucket, labels: { ...c.labels, le: "+Inf" }, value: c.count });
      values.push({ metricName: `${this.name}_sum`, labels: c.labels, value: c.sum });
      values.push({ metricName: `${this.name}_count`, labels: c.labels, value: c.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  private costOf(labels: Readonly<Record<string, string>>): number {
    return seriesCost(this.name, this.bounds.length + 3 + this.views, labels);
  }

  /** Each series' observation count, for a CountView. */
  countSamples(): Sample[] {
    return [...this.series.values()].map((c) => ({ labels: c.labels, value: c.count }));
  }

  reset(): void {
    this.budget.give(this.taken);
    this.taken = 0;
    this.series.clear();
    this.scoped = new WeakMap<object, Scoped>();
  }

  /**
   * The series for these label values (each cut to MAX_LABEL_VALUE_LENGTH), created on first use;
   * undefined when the family is full or the budget is spent.
   */
  private cell(raw: readonly string[]): Cell | undefined {
    const values = raw.map((v) => boundLabelValue(v));
    const own = this.series.get(values.join("\u001f")) ?? this.create(values, false);
    if (own !== undefined) return own;
    this.onDropped(this.name);
    if (this.overflowAt.length === 0) return undefined;
    const folded = values.slice();
    for (const i of this.overflowAt) folded[i] = OVERFLOW_LABEL;
    return this.series.get(folded.join("\u001f")) ?? this.create(folded, true);
  }

  /** A new series, if the family has room for it (an overflow series may use the budget's reserve). */
  private create(values: readonly string[], overflow: boolean): Cell | undefined {
    const labels: Record<string, string> = {};
    this.labelNames.forEach((n, i) => {
      labels[n] = values[i] ?? "";
    });
    const cost = this.costOf(labels);
    if (this.series.size >= this.maxSeries || !this.budget.take(cost, overflow)) return undefined;
    this.taken += cost;
    const created: Cell = { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
    this.series.set(values.join("\u001f"), created);
    return created;
  }
}

/** The map holding the cell for `keys`, if every level exists. */
function leafLevel(s: Scoped, keys: readonly string[]): Map<string, Level> | undefined {
  let level: Map<string, Level> | undefined = s.levels;
  for (let i = 0; i < keys.length - 1 && level !== undefined; i++)
    level = level.get(keys[i] as string) as Map<string, Level> | undefined;
  return level;
}

/** A recently used cell whose keys equal `keys`. */
function recentCell(s: Scoped, keys: readonly string[]): Cell | undefined {
  const n = keys.length;
  for (let r = 0; r < s.recentKeys.length; r++) {
    const known = s.recentKeys[r] as readonly string[];
    let i = 0;
    while (i < n && known[i] === keys[i]) i++;
    if (i === n && known.length === n) return s.recentCells[r];
  }
  return undefined;
}

/** Remembers a cell with a copy of its keys (callers may reuse their key list), replacing the oldest. */
function remember(s: Scoped, keys: readonly string[], c: Cell): void {
  s.recentKeys[s.next] = keys.slice();
  s.recentCells[s.next] = c;
  s.next = (s.next + 1) % RECENT;
}

/** A counter over a histogram's series: `<name>{labels} <count>`. */
class CountView {
  readonly type = "counter";
  readonly aggregator = "sum";

  constructor(
    public name: string,
    readonly help: string,
    private readonly of: HistogramFamily,
  ) {}

  register(registry: Registry): this {
    return register(registry, this);
  }

  async get(): Promise<Exposed> {
    await this.of.lane.turn();
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.of.countSamples(),
    };
  }

  /** The histogram owns the series; resetting the registry resets them there. */
  reset(): void {}
}

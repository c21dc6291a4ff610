/**
 * Bounds on what a review can put into a label. A review names its own resource kind and namespace,
 * so without a bound one review can make a series as long as its body (a 100 KB namespace made a
 * 100 KB label, repeated on every line of every series it touched) and a stream of reviews can make
 * as many series as it likes. Two bounds apply:
 * - every label value is cut to MAX_LABEL_VALUE_LENGTH characters (names in Kubernetes are at most
 *   253; namespaces and kinds 63), the cut ending in "…";
 * - a label fed by the request (resource_namespace, resource_kind) keeps at most `maxValues`
 *   distinct values for the life of the process; later ones are all recorded as OVERFLOW_LABEL,
 *   so totals stay right while the number of series stays bounded;
 * - the series reviews create share a size budget (series.ts, SeriesBudget); past it, a new
 *   label set is folded into its `_overflow` series.
 */
import { Buffer } from "node:buffer";

export const MAX_LABEL_VALUE_LENGTH = 128;
/** Not a valid Kubernetes namespace or kind, so it cannot collide with a real one. */
export const OVERFLOW_LABEL = "_overflow";

/**
 * `value`, cut to `max` characters. The cut is a fresh string: a slice of a 100 KB string would
 * otherwise keep the whole string alive for as long as the series lives.
 */
export function boundLabelValue(value: string, max = MAX_LABEL_VALUE_LENGTH): string {
  if (value.length <= max) return value;
  return copyString(`${value.slice(0, max - 1)}…`);
}

function copyString(s: string): string {
  return Buffer.from(s, "utf8").toString("utf8");
}

/** The first `maxValues` distinct values of one label keep their value; the rest become OVERFLOW_LABEL. */
export class LabelValueCap {
  private readonly admitted = new Map<string, string>();

  constructor(private readonly maxValues: number) {}

  /** The label value to record for `raw`: one map lookup for a value seen before. */
  labelFor(raw: string): string {
    const known = this.admitted.get(raw);
    if (known !== undefined) return known;
    // A long value is looked up and kept by its cut form, so the map never holds a long string.
    const bounded = boundLabelValue(raw);
    if (bounded !== raw) {
      const byCut = this.admitted.get(bounded);
      if (byCut !== undefined) return byCut;
    }
    if (this.admitted.size >= this.maxValues) return OVERFLOW_LABEL;
    this.admitted.set(bounded, bounded);
    return bounded;
  }

  /** Distinct values admitted so far. */
  get size(): number {
    return this.admitted.size;
  }
}

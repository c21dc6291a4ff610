/**
 * The series of one metric family, summed by label set, with a cap: once `max` distinct label sets
 * are held, a new one is not added and is counted as dropped (the scrape stays bounded whatever a
 * flood of reports brings). Values of a label set already held keep adding up.
 */
import type { Sample } from "./types.js";

export class SeriesTable {
  private readonly rows = new Map<string, { labels: Record<string, string>; value: number }>();
  private droppedSeries = new Set<string>();

  constructor(private readonly max: number) {}

  add(labels: Record<string, string>, value: number): void {
    const key = JSON.stringify(labels);
    const row = this.rows.get(key);
    if (row !== undefined) {
      row.value += value;
      return;
    }
    if (this.rows.size >= this.max) {
      this.droppedSeries.add(key);
      return;
    }
    this.rows.set(key, { labels, value });
  }

  /** Distinct label sets left out because the cap was reached. */
  get dropped(): number {
    return this.droppedSeries.size;
  }

  samples(): Sample[] {
    return [...this.rows.values()].map((r) => ({ labels: r.labels, value: r.value }));
  }
}

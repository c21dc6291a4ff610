/** The size budget of the series that reviews create, and the turns in which families render. */
import { Buffer } from "node:buffer";
import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Bytes of exposition text that new series may still take, shared by the families that draw on it.
 * A series' cost is estimated when it is created (every line it renders, with its labels); once
 * the budget is spent, a new label set goes to its family's `_overflow` series (drawn from the
 * reserve) or is dropped (OnSeriesDropped), so `/metrics` stays bounded in size and in the time
 * it takes to render, whatever label values the reviews bring.
 */
export class SeriesBudget {
  private remaining: number;
  /** The part of the budget only overflow series may use, so that folding never runs dry first. */
  private readonly reserve: number;

  constructor(total: number, reserveFraction = 0.25) {
    this.remaining = total;
    this.reserve = total * reserveFraction;
  }

  /** Takes `bytes` if that many are left (for a series of its own, beyond the reserve). */
  take(bytes: number, overflow = false): boolean {
    if (bytes > this.remaining - (overflow ? 0 : this.reserve)) return false;
    this.remaining -= bytes;
    return true;
  }

  /** Gives back what a reset family had taken. */
  give(bytes: number): void {
    this.remaining += bytes;
  }

  get left(): number {
    return this.remaining;
  }
}

/**
 * Takes turns at rendering. prom-client asks every metric for its samples at once (Promise.all),
 * so a family that merely awaited setImmediate would still build right after the others, in one
 * stretch. Through a lane, each family builds in a later turn of the event loop than the one
 * before it, and reviews waiting on I/O are served in between.
 */
export class RenderLane {
  private last: Promise<unknown> = Promise.resolve();

  turn(): Promise<unknown> {
    const mine = this.last.then(() => nextTurn());
    this.last = mine;
    return mine;
  }
}

/** An upper estimate of the exposition bytes of one series: its buckets, +Inf, _sum, _count and count views. */
export function seriesCost(name: string, lines: number, labels: Readonly<Record<string, string>>): number {
  let labelBytes = 0;
  for (const [k, v] of Object.entries(labels)) labelBytes += k.length + 4 + Buffer.byteLength(v, "utf8") * 2; // ×2: escapes
  // name + "_bucket" + braces, the le label, and the value (up to 24 characters) per line.
  return lines * (name.length + 8 + labelBytes + 16 + 26);
}

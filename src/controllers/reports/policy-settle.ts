/**
 * When a full scan starts after the policies changed. A folder applied with kubectl arrives as one
 * load per policy, and each would start a full scan writing reports under a partial set, so a scan
 * waits until the policies have been still for `settleMs`, and a pass stops when they change under
 * it. Policies that never keep still (a tenant updating hers every half second) must not starve the
 * scan: once they have been out of date for `maxWaitMs`, a pass starts anyway and runs to its end.
 */
interface SettleOptions {
  readonly settleMs: number;
  readonly maxWaitMs: number;
}

export class PolicySettle {
  /** The newest generation seen, and since when. */
  private pending = { generation: Number.NaN, since: 0 };
  /** Since when the scanned policies have been out of date (undefined: a pass finished on the newest). */
  private staleSince: number | undefined = undefined;

  constructor(private readonly o: SettleOptions) {}

  /** Whether a full scan of `generation` (not the one last scanned) may start at `now`. */
  ready(generation: number, now: number): boolean {
    if (generation !== this.pending.generation) this.pending = { generation, since: now };
    this.staleSince ??= now;
    return now - this.pending.since >= this.o.settleMs || now - this.staleSince >= this.o.maxWaitMs;
  }

  /** Whether a pass started at `now` stops when the policies change under it. */
  interruptible(now: number): boolean {
    return this.staleSince === undefined || now - this.staleSince < this.o.maxWaitMs;
  }

  /** A pass ran to its end on the policies it started with. */
  finished(): void {
    this.staleSince = undefined;
  }
}

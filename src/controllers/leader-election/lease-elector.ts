/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it:
 * - a replica acquires the Lease when nobody holds it, when its holder released it (empty
 *   holderIdentity), or when the holder has not renewed it for leaseDuration as seen by this
 *   replica's own clock (the time it last saw the record change, never the writer's timestamps);
 * - every write names the resourceVersion it read, so of two replicas racing for one Lease the API
 *   server lets exactly one write through (409 Conflict for the other);
 * - the leader renews every retryPeriod; when no renewal has succeeded for renewDeadline (shorter
 *   than leaseDuration) it steps down before anyone else may take over, and it steps down at once
 *   when it reads the Lease held by another. A renewal that has not answered by then (an API server
 *   that hangs rather than refuses) does not hold the step-down back: a watchdog steps down at the
 *   deadline, and a renewal that succeeds only after it does not count (this replica competes again
 *   at its next try). A renewal counts from when it was started, never from when its answer came;
 * - a Lease deleted under its holder is recreated by the holder at its next renewal; another
 *   replica that saw that holder waits a lease duration from when it found the Lease missing before
 *   creating one (client-go creates at once). A replica that never read the Lease creates a missing one at once;
 * - on shutdown the leader releases the Lease (empty holder, 1 s duration), so a successor does not
 *   wait out the lease duration.
 * What to write (or to wait) is decided by `reconcileLease` (reconcile-lease.ts), a pure function of
 * the Lease read and what this replica saw before; this file is the loop around it. The Lease's API
 * calls are src/kube/lease-store.ts. The clock and randomness are injected; `tick()` is one step of
 * the loop, for tests.
 */
import type { Random } from "../../engine/index.js";
import type { LeaseRecord, LeaseStore, StoredLease } from "../../kube/lease-store.js";
import { reconcileLease } from "./reconcile-lease.js";

interface ElectionClock {
  /** Milliseconds; only differences are used, except for the times written into the Lease. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** What other parts of serve plug into: whether this replica leads now, and changes of it. */
export interface LeaderElector {
  isLeader(): boolean;
  /** Called with each change of `isLeader()`; returns the unsubscribe. */
  onChange(listener: (leader: boolean) => void): () => void;
}

interface LeaseElectorOptions {
  readonly store: LeaseStore;
  /** This replica's holderIdentity: pod name (or hostname) and a random suffix. */
  readonly identity: string;
  readonly clock: ElectionClock;
  readonly random: Random;
  /** client-go's defaults: 15 s, 10 s, 2 s. */
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly onLog?: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;
}

const DEFAULT_LEASE_DURATION_MS = 15_000;
const DEFAULT_RENEW_DEADLINE_MS = 10_000;
const DEFAULT_RETRY_PERIOD_MS = 2_000;

export class LeaseElector implements LeaderElector {
  private leader = false;
  private observed: StoredLease | undefined;
  private observedAt = 0;
  private missingSince: number | undefined;
  private lastRenew = 0;
  /** Set while a renewal that outlived renewDeadline is still running: its success does not count. */
  private abandoned = false;
  private stopped = false;
  private wake: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private readonly listeners = new Set<(leader: boolean) => void>();
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;

  constructor(private readonly options: LeaseElectorOptions) {
    this.leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    if (!(
      this.leaseDurationMs > this.renewDeadlineMs &&
      this.renewDeadlineMs > this.retryPeriodMs &&
      this.retryPeriodMs > 0
    )) {
      throw new RangeError(
        `leader election needs leaseDuration > renewDeadline > retryPeriod > 0 (got ${this.leaseDurationMs} ms, ${this.renewDeadlineMs} ms, ${this.retryPeriodMs} ms)`,
      );
    }
  }

  get identity(): string {
    return this.options.identity;
  }

  /** True while this replica holds the Lease and renewed it within renewDeadline (checked at each call). */
  isLeader(): boolean {
    return this.leader && this.options.clock.now() - this.lastRenew < this.renewDeadlineMs;
  }

  /** The holder this replica last read in the Lease ("" when released, undefined before any read). */
  get observedHolder(): string | undefined {
    return this.observed?.record.holderIdentity;
  }

  onChange(listener: (leader: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs the loop until `stop()`. */
  start(): void {
    this.running ??= this.loop();
  }

  /**
   * Stops the loop and, when leading, releases the Lease. Bounded by the API server's answers: the
   * renewal in flight and the release share half of renewDeadline (5 s at client-go's defaults, so
   * a loaded API server still gets the release); when either does not answer within what is left,
   * this replica stops leading anyway and the Lease expires on its own.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    const budget = this.renewDeadlineMs / 2;
    const started = this.options.clock.now();
    if (this.running !== undefined && !(await this.within(this.running, budget))) {
      this.setLeader(false, `stopped; the renewal in flight had no answer after ${budget} ms`);
      return;
    }
    if (!this.leader) return;
    const held = this.observed;
    this.setLeader(false, "released on shutdown");
    if (held === undefined || held.record.holderIdentity !== this.identity) return;
    const now = this.options.clock.now();
    const bound = Math.max(budget - (now - started), 0);
    const release = this.options.store.update(
      {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: held.record.leaseTransitions,
      },
      held.resourceVersion,
    );
    try {
      if (!(await this.within(release, bound)))
        this.log(
          "warn",
          `the API server did not answer the release within ${bound} ms; the Lease expires on its own`,
          {},
        );
    } catch (e) {
      this.log("warn", "could not release the Lease; others take it over once it expires", {
        error: (e as Error).message,
      });
    }
  }

  /** True when `work` settles within `ms` on the election's clock (its rejection is rethrown); false when not. */
  private async within(work: Promise<unknown>, ms: number): Promise<boolean> {
    let settled = false;
    const done = work.then(() => {
      settled = true;
    });
    await Promise.race([done, this.options.clock.sleep(ms)]);
    if (settled) await done;
    else done.catch(() => undefined);
    return settled;
  }

  /** One step: acquire (not leading) or renew (leading), and step down when renewal failed for renewDeadline. */
  async tick(): Promise<void> {
    const started = this.options.clock.now();
    const got = await this.tryAcquireOrRenew();
    const now = this.options.clock.now();
    if (got && !this.abandoned && now - started < this.renewDeadlineMs) {
      this.lastRenew = started;
      if (!this.leader) this.setLeader(true, "acquired the Lease");
      return;
    }
    if (got) this.log("warn", "the Lease was written too late to count; trying again", { waitedMs: now - started });
    if (!this.leader) return;
    const other = this.observed?.record.holderIdentity;
    if (other !== undefined && other !== this.identity && other !== "")
      this.setLeader(false, `the Lease is held by ${other}`);
    else if (now - this.lastRenew >= this.renewDeadlineMs)
      this.setLeader(false, `the Lease was not renewed for ${this.renewDeadlineMs} ms (renewDeadline)`);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      await this.watchedTick();
      if (this.stopped) return;
      // Candidates jitter their retries (client-go: up to 1.2 x retryPeriod); the leader renews on the period.
      const wait = this.leader ? this.retryPeriodMs : this.retryPeriodMs * (1 + 0.2 * this.options.random.next());
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        void this.options.clock.sleep(wait).then(resolve);
      });
      this.wake = undefined;
    }
  }

  /** `tick()`; while leading, a tick still running when renewDeadline passes does not keep this replica leading. */
  private async watchedTick(): Promise<void> {
    const attempt = this.tick();
    if (!this.leader) return attempt;
    let finished = false;
    const done = attempt.then(() => {
      finished = true;
    });
    const left = this.lastRenew + this.renewDeadlineMs - this.options.clock.now();
    await Promise.race([done, this.options.clock.sleep(Math.max(0, left))]);
    if (!finished) {
      this.abandoned = true;
      this.setLeader(
        false,
        `no renewal succeeded for ${this.renewDeadlineMs} ms (renewDeadline): the API server did not answer`,
      );
    }
    await done;
    this.abandoned = false;
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const store = this.options.store;
    let current: StoredLease | undefined;
    try {
      current = await store.get();
    } catch (e) {
      this.log("warn", "reading the Lease failed", { error: (e as Error).message });
      return false;
    }
    const now = this.options.clock.now();
    if (current !== undefined) {
      this.missingSince = undefined;
      if (this.observed === undefined || this.observed.resourceVersion !== current.resourceVersion)
        this.observe(current, now);
    }
    const action = reconcileLease({
      current,
      seen: this.observed?.record,
      observedAt: this.observedAt,
      missingSince: this.missingSince,
      leading: this.isLeader(),
      identity: this.identity,
      leaseDurationMs: this.leaseDurationMs,
      now,
    });
    if (action.kind === "wait") {
      this.missingSince = action.missingSince;
      return false;
    }
    return action.kind === "create" ? this.create(store, action) : this.update(store, action);
  }

  private async create(
    store: LeaseStore,
    action: { record: LeaseRecord; missingSince: number | undefined },
  ): Promise<boolean> {
    this.missingSince = action.missingSince;
    try {
      this.observe(await store.create(action.record), this.options.clock.now());
      return true;
    } catch (e) {
      this.log("info", "creating the Lease failed (another replica may have created it)", {
        error: (e as Error).message,
      });
      return false;
    }
  }

  private async update(store: LeaseStore, action: { record: LeaseRecord; resourceVersion: string }): Promise<boolean> {
    try {
      this.observe(await store.update(action.record, action.resourceVersion), this.options.clock.now());
      return true;
    } catch (e) {
      this.log(
        this.leader ? "warn" : "info",
        this.leader ? "renewing the Lease failed" : "taking the Lease failed (another replica wrote it first)",
        { error: (e as Error).message },
      );
      return false;
    }
  }

  private observe(lease: StoredLease, at: number): void {
    this.observed = lease;
    this.observedAt = at;
    this.missingSince = undefined;
  }

  private setLeader(leader: boolean, why: string): void {
    if (this.leader === leader) return;
    this.leader = leader;
    this.log("info", leader ? "became the leader" : "stopped leading", {
      lease: this.options.store.name,
      identity: this.identity,
      reason: why,
    });
    for (const l of [...this.listeners]) l(leader);
  }

  private log(level: "info" | "warn", message: string, fields: Record<string, unknown>): void {
    this.options.onLog?.(level, `leader election: ${message}`, { lease: this.options.store.name, ...fields });
  }
}

/** A holderIdentity: the pod name (POD_NAME or the hostname) and a random suffix, as client-go's callers build it. */
export function holderIdentity(podName: string, random: Random): string {
  const suffix = Math.floor(random.next() * 36 ** 6)
    .toString(36)
    .padStart(6, "0");
  return `${podName}_${suffix}`;
}

/**
 * Whether a component that runs in other processes is up, read from its Lease (ADR 0018, "Ready
 * across processes"): the admission controller writes policy status, and a rule the background or
 * cleanup component runs is Ready only while that component runs. Its leader renews its Lease every
 * retry period; a Lease with a holder renewed within its `leaseDurationSeconds` means a leader is
 * up. Three states:
 * - `absent`: no Lease (the component was never started in this namespace, or cannot be read);
 * - `running`: held, renewed within its duration;
 * - `down`: the Lease exists but no holder renewed it within its duration (crashed, scaled to 0),
 *   or the holder released it (stopped): `why` names the Lease, for the policy's condition.
 * `presenceOf` decides from one read; `ComponentPresence` polls each Lease with a GET (the
 * admission ServiceAccount may get these Leases by name) and calls `onChange` when a state changes.
 */
import type { LeaseRecord, LeaseStore } from "../../kube/lease-store.js";

export type Presence =
  { readonly state: "absent" } | { readonly state: "running" } | { readonly state: "down"; readonly why: string };

/** The state of a component from its Lease as just read (undefined: none), at `nowMs` (epoch ms). */
export function presenceOf(lease: LeaseRecord | undefined, nowMs: number, name: string): Presence {
  if (lease === undefined) return { state: "absent" };
  if (lease.holderIdentity === "") return { state: "down", why: `its Lease ${name} has no holder` };
  if (lease.renewTime + lease.leaseDurationSeconds * 1000 >= nowMs) return { state: "running" };
  return {
    state: "down",
    why: `its Lease ${name} has not been renewed within its ${lease.leaseDurationSeconds}s duration`,
  };
}

type Log = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

interface ComponentPresenceOptions<C extends string> {
  /** Each watched component's Lease. */
  readonly leases: ReadonlyMap<C, LeaseStore>;
  readonly now: () => number;
  /** How often each Lease is read (default 2 s). */
  readonly pollMs?: number;
  readonly onLog: Log;
}

export class ComponentPresence<C extends string> {
  private readonly states = new Map<C, Presence>();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private readonly failing = new Set<C>();

  constructor(private readonly options: ComponentPresenceOptions<C>) {}

  /** The component's state as last read (`absent` before the first read). */
  of(component: C): Presence {
    return this.states.get(component) ?? { state: "absent" };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Reads every Lease now, then every poll period. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? 2000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    let changed = false;
    try {
      for (const [component, store] of this.options.leases) {
        const next = await this.read(component, store);
        if (next === undefined || sameState(next, this.of(component))) continue;
        this.states.set(component, next);
        changed = true;
        this.options.onLog("info", "component presence changed", { component, lease: store.name, ...next });
      }
    } finally {
      this.polling = false;
    }
    if (changed) for (const l of [...this.listeners]) l();
  }

  /** The Lease's state; undefined when it cannot be read (the last state stays; logged once per failure). */
  private async read(component: C, store: LeaseStore): Promise<Presence | undefined> {
    try {
      const lease = await store.get();
      this.failing.delete(component);
      return presenceOf(lease?.record, this.options.now(), store.name);
    } catch (e) {
      if (!this.failing.has(component))
        this.options.onLog("warn", "cannot read a component's Lease; its last state stays", {
          component,
          lease: store.name,
          error: e instanceof Error ? e.message : String(e),
        });
      this.failing.add(component);
      return undefined;
    }
  }
}

function sameState(a: Presence, b: Presence): boolean {
  return a.state === b.state && (a.state !== "down" || b.state !== "down" || a.why === b.why);
}

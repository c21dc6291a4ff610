/**
 * Keeps Bylaw's webhook configurations in the cluster equal to what the loaded policy set needs
 * (build-configurations.ts). `request()` is called when a set loads and when the serving CA changes;
 * when this replica becomes leader (`followLeadership`) everything is applied again at once, not at
 * the next resync; requests coalesce into one sync at a time. Only the leader writes.
 *
 * Each configuration is written whole by server-side apply, so the API server switches from the old
 * rules to the new ones in one step: there is never a moment with no webhook for a policy that stays
 * loaded. Nothing is ever deleted: when Bylaw stops, its Fail webhooks keep refusing what they cover
 * (as registered), and a failed write leaves the last written configuration in force, retried with
 * backoff. A configuration that was deleted is not re-created by Bylaw's RBAC (deploy/README.md,
 * "Self-registration"): the write fails and the log says so.
 */
import type { WebhookConfiguration } from "./types.js";
import type { Configurations } from "./build-configurations.js";

export type RegistrationLog = (
  level: "info" | "warn" | "error",
  message: string,
  fields: Record<string, unknown>,
) => void;

export interface RegistrarOptions {
  /** The configurations for the set loaded now, or undefined while no set has loaded (nothing is written then). */
  readonly build: () => Configurations | undefined;
  readonly apply: (configuration: WebhookConfiguration) => Promise<void>;
  readonly isLeader: () => boolean;
  readonly onLog: RegistrationLog;
  /** The delay before retry number `failures` (from 1). */
  readonly retryDelayMs: (failures: number) => number;
  /** Every so often the configurations are applied again even if unchanged, to undo edits by hand. Default 60 s; 0: never. */
  readonly resyncMs?: number;
}

export class Registrar {
  private readonly applied = new Map<string, string>();
  private readonly noted = new Set<string>();
  private running: Promise<void> | undefined;
  private again = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly resyncTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private unfollow: (() => void) | undefined;

  constructor(private readonly options: RegistrarOptions) {
    const resync = options.resyncMs ?? 60_000;
    if (resync > 0) {
      this.resyncTimer = setInterval(() => this.resync(), resync);
      this.resyncTimer.unref();
    }
  }

  /** Schedules a sync; resolves when the sync it joined (or started) has finished. */
  request(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Applies everything again each time this replica becomes leader (a new leader, or this one
   * after a crash or a lost Lease), so it does not wait for the next resync. Call once the server
   * answers: the API server calls the webhooks as soon as they exist. Undone by `close()`.
   */
  followLeadership(onChange: (listener: (leader: boolean) => void) => () => void): void {
    this.unfollow?.();
    this.unfollow = onChange((leader) => {
      if (leader) this.resync();
    });
  }

  /** Applies every configuration again, changed or not (undoes edits and deletions by hand). */
  private resync(): void {
    this.applied.clear();
    // Fire and forget, as the retry timer below: syncOnce catches and logs every failed apply.
    void this.request();
  }

  /** Whether the last sync wrote everything it had to (or there was nothing to write). */
  get healthy(): boolean {
    return this.failures === 0;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.resyncTimer);
    this.unfollow?.();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      await this.syncOnce();
    } while (this.again && !this.closed);
  }

  private async syncOnce(): Promise<void> {
    if (!this.options.isLeader()) return;
    const built = this.options.build();
    if (built === undefined) return;
    for (const note of built.notes) {
      if (this.noted.has(note)) continue;
      this.noted.add(note);
      this.options.onLog("info", `bylaw serve: registration is wider than the policies ask: ${note}`, {});
    }
    let failed = false;
    // The policy webhook first: it guards the policies whose rules the others carry.
    for (const configuration of [built.policyValidating, built.validating, built.mutating]) {
      const text = JSON.stringify(configuration);
      if (this.applied.get(configuration.metadata.name) === text) continue;
      try {
        await this.options.apply(configuration);
        this.applied.set(configuration.metadata.name, text);
        this.options.onLog("info", "bylaw serve: webhook configuration registered", {
          configuration: configuration.metadata.name,
          webhooks: configuration.webhooks.map((w) => w.name),
          rules: configuration.webhooks.reduce((n, w) => n + w.rules.length, 0),
        });
      } catch (error) {
        failed = true;
        this.options.onLog(
          "error",
          `bylaw serve: could not register ${configuration.kind} ${configuration.metadata.name}; the configuration in the cluster stays as it was: ${(error as Error).message}`,
          {
            configuration: configuration.metadata.name,
          },
        );
      }
    }
    if (!failed) {
      this.failures = 0;
      return;
    }
    this.failures++;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.request(), this.options.retryDelayMs(this.failures));
    this.retryTimer.unref();
  }
}

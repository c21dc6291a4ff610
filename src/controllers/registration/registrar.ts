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
 *
 * One policy cannot block the others' registration: when the API server refuses a configuration
 * (422, or too large), the policies at fault are found (refused-policies.ts), left out, and the rest
 * written. After each sync, what the API server stored (the write's answer, or a read of it) says
 * which policies it sends to Bylaw (stored-webhooks.ts): `states` holds it for policy status, so
 * Ready means registered, and a refused policy shows the API server's message. `check` asks the API
 * server (dry run) whether a policy being created would be refused, for the policy webhook.
 */
import { isObject, type CompiledPolicy } from "../../engine/index.js";
import type { WebhookState } from "../policy-status/policy-status-writer.js";
import type { Configurations, WebhookConfiguration } from "./types.js";
import { findRefused } from "./refused-policies.js";
import type { RegistrationStates } from "./registration-states.js";
import { inForce, storedWebhooks } from "./stored-webhooks.js";

export type RegistrationLog = (
  level: "info" | "warn" | "error",
  message: string,
  fields: Record<string, unknown>,
) => void;

/** What to build: the loaded set without `without` (refused policies), with `candidate` in place of its namesake. */
export interface BuildRequest {
  readonly without?: ReadonlySet<string>;
  readonly candidate?: CompiledPolicy;
}

export interface RegistrarOptions {
  /** The configurations for the set loaded now, or undefined while no set has loaded (nothing is written then). */
  readonly build: (request?: BuildRequest) => Configurations | undefined;
  /** Writes a configuration (or, with dryRun, asks whether the API server would accept it); resolves with what it stored. */
  readonly apply: (configuration: WebhookConfiguration, options?: { readonly dryRun?: boolean }) => Promise<unknown>;
  /** Reads the configuration the API server holds (after a failed write); undefined when it cannot. */
  readonly read?: (configuration: WebhookConfiguration) => Promise<unknown>;
  /** Where each sync publishes which policies are registered (policy status reads it). */
  readonly states?: RegistrationStates;
  readonly isLeader: () => boolean;
  readonly onLog: RegistrationLog;
  /** The delay before retry number `failures` (from 1). */
  readonly retryDelayMs: (failures: number) => number;
  /** Every so often the configurations are applied again even if unchanged, to undo edits by hand. Default 60 s; 0: never. */
  readonly resyncMs?: number;
}

/** Refusal searches per sync (each leaves out at least one policy), and dry runs per search. */
const MAX_ROUNDS = 8;
const DRY_RUN_BUDGET = 48;

/** A write the API server refused for what it holds (422 Invalid, 413 or etcd's "too large"), not for its own trouble. */
function isRefusal(e: unknown): boolean {
  const status = (e as { status?: unknown }).status;
  return status === 422 || status === 413 || (status === 500 && /too large/i.test((e as Error).message));
}

interface WriteResult {
  readonly refusal?: { readonly configuration: WebhookConfiguration; readonly message: string };
  readonly failed: boolean;
}

export class Registrar {
  private readonly applied = new Map<string, string>();
  /** What the API server holds of each configuration, and why the last write of one failed. */
  private readonly stored = new Map<string, unknown>();
  private readonly writeErrors = new Map<string, string>();
  private refused = new Map<string, string>();
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

  /**
   * Why the API server would refuse the webhook configuration with `candidate` in it (a dry-run
   * write of each configuration that carries it), or undefined when it would accept it or cannot be asked.
   */
  async check(candidate: CompiledPolicy, id: string): Promise<string | undefined> {
    const built = this.options.build({ without: new Set(this.refused.keys()), candidate });
    if (built === undefined) return undefined;
    for (const configuration of [built.validating, built.mutating]) {
      const owners = built.owners.get(configuration.metadata.name);
      if (owners === undefined || ![...owners.values()].some((ids) => ids.includes(id))) continue;
      try {
        await this.options.apply(configuration, { dryRun: true });
      } catch (e) {
        if (isRefusal(e)) return (e as Error).message;
        return undefined;
      }
    }
    return undefined;
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
    const refused = new Map<string, string>();
    let built = this.options.build();
    if (built === undefined) return;
    this.note(built.notes);
    let failed = false;
    for (let round = 0; ; round++) {
      const result = await this.writeAll(built);
      failed = result.failed;
      if (result.refusal === undefined) break;
      const found = round < MAX_ROUNDS ? await this.search(result.refusal, refused) : new Map<string, string>();
      if (found.size === 0) {
        failed = true;
        this.logFailure(result.refusal.configuration, result.refusal.message);
        break;
      }
      for (const [id, message] of found) {
        refused.set(id, message);
        this.options.onLog("error", "bylaw serve: the API server refuses the webhook of a policy; it is left out", {
          policy: id,
          error: message,
        });
      }
      built = this.options.build({ without: new Set(refused.keys()) }) ?? built;
    }
    this.refused = refused;
    this.publish(built, refused);
    this.schedule(failed);
  }

  private note(notes: readonly string[]): void {
    for (const note of notes) {
      if (this.noted.has(note)) continue;
      this.noted.add(note);
      this.options.onLog("info", `bylaw serve: registration is wider than the policies ask: ${note}`, {});
    }
  }

  /** Writes each changed configuration, the policy webhook first (it guards the policies whose rules the others carry). */
  private async writeAll(built: Configurations): Promise<WriteResult> {
    let failed = false;
    for (const configuration of [built.policyValidating, built.validating, built.mutating]) {
      const name = configuration.metadata.name;
      const text = JSON.stringify(configuration);
      if (this.applied.get(name) === text) continue;
      try {
        const answer = await this.options.apply(configuration);
        this.applied.set(name, text);
        this.stored.set(name, isObject(answer) ? answer : configuration);
        this.writeErrors.delete(name);
        this.options.onLog("info", "bylaw serve: webhook configuration registered", {
          configuration: name,
          webhooks: configuration.webhooks.map((w) => w.name),
          rules: configuration.webhooks.reduce((n, w) => n + w.rules.length, 0),
        });
      } catch (error) {
        const message = (error as Error).message;
        if (isRefusal(error) && configuration !== built.policyValidating)
          return { refusal: { configuration, message }, failed };
        failed = true;
        this.writeErrors.set(name, message);
        this.logFailure(configuration, message);
        await this.readBack(configuration);
      }
    }
    return { failed };
  }

  private logFailure(configuration: WebhookConfiguration, message: string): void {
    this.options.onLog(
      "error",
      `bylaw serve: could not register ${configuration.kind} ${configuration.metadata.name}; the configuration in the cluster stays as it was: ${message}`,
      { configuration: configuration.metadata.name },
    );
  }

  /** After a failed write: what the API server holds now (nothing known when it cannot be read). */
  private async readBack(configuration: WebhookConfiguration): Promise<void> {
    const name = configuration.metadata.name;
    this.applied.delete(name);
    try {
      const answer = await this.options.read?.(configuration);
      if (isObject(answer)) this.stored.set(name, answer);
      else this.stored.delete(name);
    } catch {
      this.stored.delete(name);
    }
  }

  private search(
    refusal: NonNullable<WriteResult["refusal"]>,
    refused: ReadonlyMap<string, string>,
  ): Promise<Map<string, string>> {
    const name = refusal.configuration.metadata.name;
    const pick = (c: Configurations): WebhookConfiguration =>
      c.validating.metadata.name === name ? c.validating : c.mutating;
    return findRefused(
      {
        build: (without) => {
          const c = this.options.build({ without });
          return c === undefined ? refusal.configuration : pick(c);
        },
        owners: (configuration) => {
          const c = this.options.build({ without: new Set(refused.keys()) });
          // The owners of the configuration searched: by its webhooks' names.
          const all = c?.owners.get(configuration.metadata.name) ?? new Map<string, readonly string[]>();
          return all;
        },
        dryRun: async (configuration) => {
          await this.options.apply(configuration, { dryRun: true });
        },
        budget: DRY_RUN_BUDGET,
      },
      refusal,
      new Set(refused.keys()),
    );
  }

  /** Which policies the API server now sends to Bylaw, from the configurations it stored. */
  private publish(built: Configurations, refused: ReadonlyMap<string, string>): void {
    const states = new Map<string, WebhookState>();
    for (const [id, message] of refused)
      states.set(id, {
        registered: false,
        message: `the API server refuses the webhook Bylaw registers for this policy, so its requests are not sent to Bylaw: ${message}`,
      });
    for (const configuration of [built.validating, built.mutating]) {
      const name = configuration.metadata.name;
      const hooks = storedWebhooks(this.stored.get(name));
      const owners = built.owners.get(name);
      const why = this.writeErrors.get(name);
      for (const webhook of configuration.webhooks) {
        if (inForce(hooks.get(webhook.name), webhook)) continue;
        for (const id of owners?.get(webhook.name) ?? [])
          states.set(id, {
            registered: false,
            message: `its webhook ${webhook.name} is not in the ${name} the API server holds${why !== undefined ? ` (the last write failed: ${why})` : ""}`,
          });
      }
    }
    this.options.states?.set(new Set([...built.policies, ...refused.keys()]), states);
  }

  private schedule(failed: boolean): void {
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

/**
 * Writes ClusterPolicy and Policy `status` (policy-status.ts) through the status subresource, one
 * merge patch at a time, only while `isLeader()` says so, and only when it changes (what to write is
 * decided by reconcile-status.ts; the PATCH is kube/status-patch.ts):
 * - the desired status is compared with the stored one (lastTransitionTime kept when the Ready
 *   status did not flip), so an unchanged policy is never written;
 * - what was last written is remembered per object: while the cache still shows the object as it
 *   was before that write (the watch event not in yet), or shows exactly what the write produced
 *   (the API server may prune or normalise what it stores), the same status is not written again.
 *   Our own write's watch event therefore never causes another write (no loop).
 * A conflict (the object changed since it was read) or NotFound (deleted) is left to the next event.
 * With registration (`--register`), a served policy is Ready only once the API server's stored
 * webhook configurations send its requests to Bylaw (`registration`); until registration has
 * synced it, its status is not written.
 */
import { KubeError, type KubeClient } from "../../kube/kube-client.js";
import { patchStatus } from "../../kube/status-patch.js";
import type { PolicyOutcome } from "./policy-status.js";
import { reconcileStatus, type Written } from "./reconcile-status.js";

/** Whether the API server sends a served policy's requests to Bylaw (confirmed from its stored webhook configurations). */
export type WebhookState = { readonly registered: true } | { readonly registered: false; readonly message: string };

/** Registration as policy status reads it (server/registration/registration-states.ts). */
export interface RegistrationView {
  /** Undefined while not known yet (pending): the status is not written until it is. */
  stateOf(policy: {
    readonly kind: string;
    readonly namespace: string;
    readonly name: string;
  }): WebhookState | undefined;
}

interface PolicyStatusWriterOptions {
  readonly client: Pick<KubeClient, "sendJson">;
  /** With `--register`: Ready also means "registered"; without it Ready means "served". */
  readonly registration?: RegistrationView;
  /** Only the leader writes shared objects; the others compute and skip. Default: always. */
  readonly isLeader?: () => boolean;
  /** Wall clock in ms, for lastTransitionTime. */
  readonly now: () => number;
  readonly onLog?: (level: "debug" | "info" | "warn", message: string, fields: Record<string, unknown>) => void;
  /** Whoever runs background reports here: what they may not read of a policy's resources (reporting-access.ts). */
  readonly reporting?: (outcome: PolicyOutcome) => Promise<readonly string[] | undefined>;
  /** What the background controller may not do of what a served policy asks of it (server/app/background-readiness.ts). */
  readonly background?: (outcome: PolicyOutcome) => Promise<readonly string[]>;
}

export class PolicyStatusWriter {
  private readonly pending = new Map<string, PolicyOutcome>();
  private readonly written = new Map<string, Written>();
  private running: Promise<void> | undefined;
  private closed = false;
  private forbiddenLogged = false;
  /** Writes done and skipped, for tests and logs. */
  readonly counts = { written: 0, unchanged: 0, conflicts: 0, failed: 0, pending: 0 };

  constructor(private readonly options: PolicyStatusWriterOptions) {}

  /** Queues the status of each policy; the latest outcome of an object replaces a queued one. */
  reconcile(outcomes: readonly PolicyOutcome[]): void {
    if (this.closed) return;
    const live = new Set<string>();
    for (const o of outcomes) {
      live.add(o.uid);
      this.pending.set(o.uid, o);
    }
    for (const uid of this.written.keys()) if (!live.has(uid)) this.written.delete(uid);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /**
   * Compares every policy's status again (`outcomes()`, the current ones) each time this replica
   * becomes leader, so a new leader (or this one after a crash) writes at once rather than at the
   * next resync: outcomes reconciled while not leading were skipped. Returns the unsubscribe.
   */
  followLeadership(
    onChange: (listener: (leader: boolean) => void) => () => void,
    outcomes: () => readonly PolicyOutcome[],
  ): () => void {
    return onChange((leader) => {
      if (leader) this.reconcile(outcomes());
    });
  }

  /** Resolves once every queued status has been handled. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  close(): void {
    this.closed = true;
    this.pending.clear();
  }

  private async drain(): Promise<void> {
    while (!this.closed && this.pending.size > 0) {
      const [uid, outcome] = this.pending.entries().next().value as [string, PolicyOutcome];
      this.pending.delete(uid);
      if (this.options.isLeader?.() === false) continue;
      await this.writeOne(outcome);
    }
  }

  private async writeOne(outcome: PolicyOutcome): Promise<void> {
    const registration = this.options.registration;
    const reporting = await this.options.reporting?.(outcome);
    const background = outcome.compiled !== undefined ? await this.options.background?.(outcome) : undefined;
    const action = reconcileStatus({
      ...(reporting !== undefined ? { reporting } : {}),
      ...(background !== undefined ? { background } : {}),
      outcome,
      ...(registration !== undefined
        ? { registration: { state: outcome.compiled !== undefined ? registration.stateOf(outcome) : undefined } }
        : {}),
      last: this.written.get(outcome.uid),
      nowMs: this.options.now(),
    });
    if (action.kind !== "patch") {
      this.counts[action.kind]++;
      return;
    }
    const desired = action.desired;
    const what = `${outcome.kind} ${outcome.namespace === "" ? "" : `${outcome.namespace}/`}${outcome.name}`;
    try {
      const answer = await patchStatus(this.options.client, action.path, action.patch);
      this.written.set(outcome.uid, { before: outcome.resourceVersion, desired, stored: answer.status });
      this.counts.written++;
      this.options.onLog?.("debug", "policy status written", { policy: what, ready: outcome.compiled !== undefined });
    } catch (e) {
      if (e instanceof KubeError && (e.status === 409 || e.status === 404)) {
        this.counts.conflicts++;
        return;
      }
      this.counts.failed++;
      if (e instanceof KubeError && e.status === 403) {
        if (!this.forbiddenLogged)
          this.options.onLog?.(
            "warn",
            "cannot write policy status: Bylaw's ServiceAccount needs patch on the status of each policy kind it reads (clusterpolicies/status and policies/status in kyverno.io; validatingpolicies/status and the other policies.kyverno.io kinds)",
            { policy: what, error: e.message },
          );
        this.forbiddenLogged = true;
        return;
      }
      this.options.onLog?.("warn", "policy status not written; retried on the next change or resync", {
        policy: what,
        error: (e as Error).message,
      });
    }
  }
}

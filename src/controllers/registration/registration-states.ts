/**
 * Whether the API server sends a policy's requests to Bylaw, per policy (`policyId`), as the last
 * registration found it in the configurations the API server stored (registrar.ts). Policy status
 * reads it (controllers/policy-status/policy-status-writer.ts): Ready means "registered", and a policy the API server
 * refused is not Ready, with its message. A policy the last sync did not see yet is pending: its
 * status waits for the next sync rather than saying Ready before it is true.
 */
import type { RegistrationView, WebhookState } from "../policy-status/policy-status-writer.js";

export class RegistrationStates implements RegistrationView {
  private states: ReadonlyMap<string, WebhookState> | undefined;
  private known: ReadonlySet<string> = new Set();
  private readonly listeners = new Set<() => void>();

  /** What the last sync found: `known` every policy it built for, `states` those with webhooks or refused. */
  set(known: ReadonlySet<string>, states: ReadonlyMap<string, WebhookState>): void {
    this.known = known;
    this.states = states;
    for (const l of this.listeners) l();
  }

  /** Undefined while pending (no sync yet, or the policy came after the last one). */
  stateOf(policy: {
    readonly kind: string;
    readonly namespace: string;
    readonly name: string;
  }): WebhookState | undefined {
    const id = `${policy.kind}/${policy.namespace}/${policy.name}`;
    if (this.states === undefined || !this.known.has(id)) return undefined;
    // A served policy that needs no webhook (nothing it matches is sent at admission) has nothing to confirm.
    return this.states.get(id) ?? { registered: true };
  }

  /** Calls `listener` after each sync; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Watches of the policy kinds `bylaw serve` reads from the cluster: ClusterPolicy and Policy
 * (kyverno.io/v1, the CRDs' storage version), PolicyException (kyverno.io/v2; v2beta1 is served
 * too but deprecated), the policies.kyverno.io PolicyException (v1beta1, its CRD's storage
 * version) and the policies.kyverno.io policy kinds (cel-policy-kinds.ts, v1beta1). Each is a
 * list-then-watch Informer; listeners hear of every change, and of every full list (a relist after
 * 410 Gone replaces objects without per-object events). Every watch holds readiness until it has
 * listed, except that of a policies.kyverno.io kind Bylaw does not evaluate, or of the
 * policies.kyverno.io PolicyException, whose CRD is not installed (404: no such object can exist):
 * that is logged once and its watch keeps retrying. PolicyException watches hold readiness only
 * while exceptions are on.
 */
import type { Random } from "../engine/index.js";
import { CEL_GROUP, CEL_POLICY_KINDS, CEL_STORAGE_VERSION, type CelPolicyKind } from "./cel-policy-kinds.js";
import { Informer } from "./informer.js";
import type { KubeClient } from "./kube-client.js";
import { gvrKey, type Gvr, type KubeObject } from "./types.js";

const CLUSTER_POLICIES: Gvr = { group: "kyverno.io", version: "v1", resource: "clusterpolicies" };
const POLICIES: Gvr = { group: "kyverno.io", version: "v1", resource: "policies" };
const POLICY_EXCEPTIONS: Gvr = { group: "kyverno.io", version: "v2", resource: "policyexceptions" };
const CEL_POLICY_EXCEPTIONS: Gvr = {
  group: CEL_GROUP,
  version: CEL_STORAGE_VERSION,
  resource: "policyexceptions",
};

/** What the cluster policy source reads: the objects of each kind, whether they have loaded, and changes. */
export interface PolicyObjectStore {
  clusterPolicies(): readonly KubeObject[];
  policies(): readonly KubeObject[];
  exceptions(): readonly KubeObject[];
  /** The policies.kyverno.io PolicyExceptions (empty while their watch has not listed). */
  celExceptions(): readonly KubeObject[];
  /** The objects of one policies.kyverno.io kind (empty while its watch has not listed). */
  celPolicies(kind: CelPolicyKind): readonly KubeObject[];
  /** Not ready (with the reason) until each required watch has listed; a watch over its memory budget is a reason too. */
  readiness(): { readonly ok: boolean; readonly reason?: string };
  onChange(listener: () => void): () => void;
  close(): void;
}

interface PolicyInformersOptions {
  readonly client: KubeClient;
  readonly budgetBytes: number;
  readonly random: Random;
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * Whether PolicyExceptions count for readiness. When exceptions are off they are still watched,
   * so that each one can be reported as ignored, but a missing permission or CRD does not hold
   * readiness back.
   */
  readonly exceptionsRequired: boolean;
  readonly onLog?: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;
}

export class PolicyInformers implements PolicyObjectStore {
  private readonly listeners = new Set<() => void>();
  private readonly cpol: Informer;
  private readonly pol: Informer;
  private readonly polex: Informer;
  private readonly celPolex: Informer;
  private celPolexMissingLogged = false;
  private readonly cel = new Map<CelPolicyKind, { readonly informer: Informer; readonly required: boolean }>();
  private readonly missingLogged = new Set<CelPolicyKind>();

  constructor(private readonly options: PolicyInformersOptions) {
    const make = (gvr: Gvr): Informer =>
      new Informer({
        client: options.client,
        gvr,
        budgetBytes: options.budgetBytes,
        random: options.random,
        sleep: options.sleep,
        onEvent: () => this.changed(),
        onListed: () => this.changed(),
        ...(options.onLog !== undefined ? { onLog: options.onLog } : {}),
      });
    this.cpol = make(CLUSTER_POLICIES);
    this.pol = make(POLICIES);
    this.polex = make(POLICY_EXCEPTIONS);
    this.celPolex = new Informer({
      client: options.client,
      gvr: CEL_POLICY_EXCEPTIONS,
      budgetBytes: options.budgetBytes,
      random: options.random,
      sleep: options.sleep,
      onEvent: () => this.changed(),
      onListed: () => this.changed(),
      // A missing CRD is said once, not at every retry.
      onLog: (level, message, fields) => {
        if (level !== "warn" || !notInstalled(this.celPolex.lastFailure))
          return options.onLog?.(level, message, fields);
        if (this.celPolexMissingLogged) return;
        this.celPolexMissingLogged = true;
        options.onLog?.(
          "warn",
          "PolicyException (policies.kyverno.io) objects cannot be listed: its CRD is not installed; Bylaw keeps trying",
          fields,
        );
      },
    });
    for (const k of CEL_POLICY_KINDS) {
      this.cel.set(k.kind, {
        required: k.required,
        informer: new Informer({
          client: options.client,
          gvr: k.gvr,
          budgetBytes: options.budgetBytes,
          random: options.random,
          sleep: options.sleep,
          onEvent: () => this.changed(),
          onListed: () => this.changed(),
          // An optional kind whose CRD is missing is said once, not at every retry.
          onLog: (level, message, fields) => {
            if (k.required || level !== "warn") return options.onLog?.(level, message, fields);
            if (this.missingLogged.has(k.kind)) return;
            this.missingLogged.add(k.kind);
            options.onLog?.(
              "warn",
              `${k.kind} objects cannot be listed; Bylaw keeps trying (a CRD that is not installed does not hold readiness, any other failure does)`,
              fields,
            );
          },
        }),
      });
    }
    for (const i of this.all()) {
      // A cache that went over budget resolves synced() without a list: readiness reports it.
      void i.synced().then(() => this.changed());
      i.start();
    }
  }

  clusterPolicies(): readonly KubeObject[] {
    return this.cpol.list();
  }

  policies(): readonly KubeObject[] {
    return this.pol.list();
  }

  exceptions(): readonly KubeObject[] {
    return this.polex.list();
  }

  celExceptions(): readonly KubeObject[] {
    return this.celPolex.health().ok ? this.celPolex.list() : [];
  }

  celPolicies(kind: CelPolicyKind): readonly KubeObject[] {
    const c = this.cel.get(kind);
    return c === undefined || !c.informer.health().ok ? [] : c.informer.list();
  }

  readiness(): { readonly ok: boolean; readonly reason?: string } {
    const required = this.options.exceptionsRequired ? [this.cpol, this.pol, this.polex] : [this.cpol, this.pol];
    if (this.options.exceptionsRequired && !notInstalled(this.celPolex.lastFailure)) required.push(this.celPolex);
    // A kind Bylaw does not evaluate holds readiness too (its objects must be answered, never missed),
    // unless its CRD is not installed: then no such object can exist.
    for (const c of this.cel.values())
      if (c.required || !notInstalled(c.informer.lastFailure)) required.push(c.informer);
    const reasons: string[] = [];
    for (const i of required) {
      const h = i.health();
      if (!h.ok) reasons.push(h.reason);
    }
    return reasons.length > 0
      ? { ok: false, reason: `policies from the cluster not loaded: ${reasons.join("; ")}` }
      : { ok: true };
  }

  /** The names of the watched resources, for logs. */
  get watched(): readonly string[] {
    return [
      CLUSTER_POLICIES,
      POLICIES,
      POLICY_EXCEPTIONS,
      CEL_POLICY_EXCEPTIONS,
      ...CEL_POLICY_KINDS.map((k) => k.gvr),
    ].map(gvrKey);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
    for (const i of this.all()) i.stop();
  }

  private all(): Informer[] {
    return [this.cpol, this.pol, this.polex, this.celPolex, ...[...this.cel.values()].map((c) => c.informer)];
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }
}

/** Whether a list failed because the resource does not exist on the server (its CRD is not installed). */
export function notInstalled(failure: string | undefined): boolean {
  return failure !== undefined && /\b404\b|could not find the requested resource/i.test(failure);
}

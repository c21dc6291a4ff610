/**
 * The certificate Secret every replica shares (`bylaw serve --tls-secret NS/NAME`):
 * - every replica watches the one Secret (a list/watch with `fieldSelector=metadata.name=NAME`, so
 *   RBAC can grant it by resourceNames) and serves the pair in it once it is a valid one;
 * - the leader alone writes it: it creates the CA and serving certificate, renews them before they
 *   expire and rotates the CA (cert-rotation.ts decides what to write), each write naming the
 *   resourceVersion it read. A Secret that does not exist is created as `kubernetes.io/tls`; one
 *   that exists (deploy/ ships it empty) keeps its type and gets its data replaced.
 * Data keys: tls.crt, tls.key (the pair), ca.crt (the CA bundle clients trust), ca.key.
 */
import { checkTlsPair } from "../../platform/tls/tls-pair.js";
import {
  CA_ROTATED_ANNOTATION,
  planRotation,
  ROTATE_ANNOTATION,
  type RotationSettings,
  type TlsSecretData,
} from "./cert-rotation.js";
import type { Random } from "../../engine/index.js";
import { Informer } from "../../kube/informer.js";
import { KubeError, type KubeClient } from "../../kube/kube-client.js";
import type { LeaderElector } from "../leader-election/lease-elector.js";
import type { KubeObject } from "../../kube/types.js";

/** The pair to serve and the bundle clients must trust (base64, for a webhook's clientConfig.caBundle). */
interface ServingCertificate {
  readonly cert: string;
  readonly key: string;
  readonly caBundle: string;
}

/** What other parts of serve plug into (self-registration reads the caBundle from it). */
export interface CertificateStore {
  current(): ServingCertificate | undefined;
  /** Called with each new certificate; returns the unsubscribe. */
  onChange(listener: (certificate: ServingCertificate) => void): () => void;
}

interface SecretCertificatesOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly name: string;
  /** Only the leader writes; without an elector this replica never writes (it only reads). */
  readonly elector: LeaderElector | undefined;
  readonly settings: RotationSettings;
  readonly random: Random;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly onLog?: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;
}

type SecretJson = KubeObject & {
  type?: string;
  data?: Record<string, string>;
  metadata?: { annotations?: Record<string, string>; resourceVersion?: string };
};

export class SecretCertificates implements CertificateStore {
  private readonly informer: Informer;
  private readonly listeners = new Set<(c: ServingCertificate) => void>();
  private serving: ServingCertificate | undefined;
  private problem: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reconciling: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private unfollow: (() => void) | undefined;
  readonly where: string;

  constructor(private readonly o: SecretCertificatesOptions) {
    this.where = `${o.namespace}/${o.name}`;
    this.informer = new Informer({
      client: o.client,
      gvr: { group: "", version: "v1", resource: "secrets" },
      namespace: o.namespace,
      fieldSelector: `metadata.name=${o.name}`,
      budgetBytes: 1024 * 1024,
      random: o.random,
      sleep: o.sleep,
      onEvent: () => this.changed(),
      // The first list and every relist (after 410 Gone) replace the cache without events.
      onListed: () => this.changed(),
      ...(o.onLog !== undefined ? { onLog: o.onLog } : {}),
    });
  }

  start(): void {
    this.informer.start();
    this.unfollow = this.o.elector?.onChange((leader) => {
      if (leader) this.reconcile();
    });
    if (this.o.elector?.isLeader() === true) this.reconcile();
  }

  current(): ServingCertificate | undefined {
    return this.serving;
  }

  onChange(listener: (c: ServingCertificate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Not ready until the Secret holds a valid pair, with the reason. */
  readiness(): { readonly ok: boolean; readonly reason?: string } {
    if (this.serving !== undefined)
      return this.problem === undefined ? { ok: true } : { ok: true, reason: this.problem };
    const h = this.informer.health();
    const why = !h.ok
      ? h.reason
      : (this.problem ?? `the Secret ${this.where} holds no certificate yet (the leader writes it)`);
    return { ok: false, reason: `no serving certificate: ${why}` };
  }

  close(): void {
    this.closed = true;
    this.unfollow?.();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.informer.stop();
  }

  private log(level: "info" | "warn", message: string, fields: Record<string, unknown> = {}): void {
    this.o.onLog?.(level, `certificate Secret ${this.where}: ${message}`, fields);
  }

  /** The watched Secret changed (or the cache synced): serve its pair if valid and new; let the leader check it. */
  private changed(): void {
    const secret = this.informer.get(this.o.namespace, this.o.name) as SecretJson | undefined;
    const data = decode(secret?.data);
    if (secret !== undefined && data["tls.crt"] !== undefined && data["tls.crt"] !== "") {
      const pair = checkTlsPair(
        { cert: data["tls.crt"], key: data["tls.key"] ?? "" },
        { certPath: `Secret ${this.where} tls.crt`, keyPath: `Secret ${this.where} tls.key` },
      );
      if (!pair.ok) {
        this.problem = `${pair.error.message}; keeping the certificate served now`;
        this.log("warn", "holds an invalid pair", { error: pair.error.message });
      } else if (
        pair.value.cert !== this.serving?.cert ||
        data["ca.crt"] !== Buffer.from(this.serving.caBundle, "base64").toString("utf8")
      ) {
        this.problem = undefined;
        this.serving = {
          cert: pair.value.cert,
          key: pair.value.key,
          caBundle: Buffer.from(data["ca.crt"] ?? "", "utf8").toString("base64"),
        };
        for (const l of [...this.listeners]) l(this.serving);
      }
    }
    if (this.o.elector?.isLeader() === true) this.reconcile();
  }

  /** The leader's check: one at a time; a trigger during a check runs it again once it ends. */
  private reconcile(): void {
    if (this.reconciling !== undefined) {
      this.again = true;
      return;
    }
    this.reconciling = this.reconcileOnce()
      .catch((e: unknown) => {
        this.log("warn", "could not update; retrying in 5 s", { error: (e as Error).message });
        this.schedule(5_000);
      })
      .finally(() => {
        this.reconciling = undefined;
        if (this.again && !this.closed) {
          this.again = false;
          this.reconcile();
        }
      });
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.reconcile(), ms);
    this.timer.unref();
  }

  private async reconcileOnce(): Promise<void> {
    if (this.closed || this.o.elector?.isLeader() !== true) return;
    const path = `/api/v1/namespaces/${encodeURIComponent(this.o.namespace)}/secrets/${encodeURIComponent(this.o.name)}`;
    let secret: SecretJson | undefined;
    try {
      secret = (await this.o.client.getJson(path)) as SecretJson;
    } catch (e) {
      if (!(e instanceof KubeError && e.status === 404)) throw e;
    }
    const annotations = secret?.metadata?.annotations ?? {};
    const rotatedAt = Date.parse(annotations[CA_ROTATED_ANNOTATION] ?? "");
    const plan = await planRotation(
      {
        data: decode(secret?.data),
        rotateRequested: annotations[ROTATE_ANNOTATION] !== undefined,
        ...(Number.isFinite(rotatedAt) ? { caRotatedAt: rotatedAt } : {}),
      },
      this.o.settings,
      this.o.now(),
    );
    if (plan.kind === "keep") {
      this.schedule(plan.recheckInMs);
      return;
    }
    // Leadership may have moved while the certificates were minted.
    if (this.o.elector?.isLeader() !== true) return;
    const rest = Object.fromEntries(
      Object.entries(annotations).filter(([k]) => k !== ROTATE_ANNOTATION && k !== CA_ROTATED_ANNOTATION),
    );
    const body = {
      ...(secret ?? { apiVersion: "v1", kind: "Secret", type: "kubernetes.io/tls" }),
      metadata: {
        ...(secret?.metadata ?? { name: this.o.name, namespace: this.o.namespace }),
        annotations: {
          ...rest,
          ...(plan.caRotatedAt !== undefined
            ? { [CA_ROTATED_ANNOTATION]: new Date(plan.caRotatedAt).toISOString() }
            : {}),
        },
      },
      data: { ...(secret?.data ?? {}), ...encode(plan.data) },
    };
    if (secret === undefined)
      await this.o.client.sendJson("POST", `/api/v1/namespaces/${encodeURIComponent(this.o.namespace)}/secrets`, body);
    else await this.o.client.sendJson("PUT", path, body);
    this.log("info", "written by the leader", { reason: plan.reason });
    // The write comes back through the watch, which checks again (and schedules the next check).
  }
}

function decode(data: Record<string, string> | undefined): TlsSecretData {
  const out: Record<string, string> = {};
  for (const key of ["tls.crt", "tls.key", "ca.crt", "ca.key"]) {
    const v = data?.[key];
    if (typeof v === "string") out[key] = Buffer.from(v, "base64").toString("utf8");
  }
  return out;
}

function encode(data: Required<TlsSecretData>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "utf8").toString("base64")]));
}

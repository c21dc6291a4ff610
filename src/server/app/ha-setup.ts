/**
 * `bylaw serve --leader-elect` and `--tls-secret`: leader election on a Lease and the certificate
 * Secret all replicas share (src/controllers/leader-election, src/controllers/tls-secret). What the rest of
 * serve plugs into: `elector` (isLeader/onChange: only the leader writes shared objects),
 * `certificates` (current/onChange: the serving pair and the caBundle to register), `tls` (the pair
 * the HTTPS server presents, reloaded as the Secret changes) and `withReadiness` (not ready until
 * the Secret holds a certificate).
 */
import { hostname } from "node:os";
import { isIP } from "node:net";
import { Gauge, type Registry } from "prom-client";
import { KubeClient } from "../../kube/kube-client.js";
import { resolveConnection } from "../../kube/kubeconfig.js";
import { holderIdentity, LeaseElector, type LeaderElector } from "../../controllers/leader-election/lease-elector.js";
import { KubeLeaseStore } from "../../kube/lease-store.js";
import { SecretCertificates, type CertificateStore } from "../../controllers/tls-secret/secret-certificates.js";
import type { ServingTls } from "./tls-setup.js";

/** What `--leader-elect` and `--tls-secret` asked for, checked (cli/commands/serve/ha-flags.ts). */
export interface HaSettings {
  readonly leaseName: string;
  readonly namespace: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /** `--tls-secret` as given: NAMESPACE/NAME or NAME (in the Lease's namespace). */
  readonly tlsSecret: string | undefined;
  readonly serviceName: string | undefined;
  readonly dnsNames: readonly string[];
  readonly renewBeforeMs: number;
  readonly caOverlapMs: number;
  readonly kubeconfig: string | undefined;
}

type HaLog = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

interface HaSetup {
  readonly elector: LeaderElector | undefined;
  readonly certificates: CertificateStore | undefined;
  /** The serving pair from the Secret (undefined: --tls-cert-file or --self-signed decide). */
  readonly tls: ServingTls | undefined;
  /** The bylaw_leader gauge (with --leader-elect). */
  bindMetrics(registry: Registry): void;
  withReadiness<S extends { readiness(): { ok: boolean; reason?: string } }>(source: S): S;
  /** Releases the Lease (when leading) and stops watching. */
  close(): Promise<void>;
}

const systemSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/** Leader election and the certificate Secret, as `settings` ask (undefined: neither). */
export async function setUpHa(
  settings: HaSettings | undefined,
  onLog: HaLog,
): Promise<{ ok: true; value: HaSetup } | { ok: false; error: string }> {
  const none: HaSetup = {
    elector: undefined,
    certificates: undefined,
    tls: undefined,
    bindMetrics: () => undefined,
    withReadiness: (s) => s,
    close: () => Promise.resolve(),
  };
  if (settings === undefined) return { ok: true, value: none };
  const namespace = settings.namespace;
  const secretFlag = settings.tlsSecret;
  const conn = resolveConnection({
    ...(settings.kubeconfig !== undefined ? { kubeconfigFlag: settings.kubeconfig } : {}),
    env: process.env,
    now: () => Date.now(),
  });
  if (!conn.ok) return { ok: false, error: `--leader-elect: ${conn.error.message}` };
  const client = new KubeClient({ connection: conn.value });
  const random = { next: Math.random };
  let elector: LeaseElector;
  try {
    elector = new LeaseElector({
      store: new KubeLeaseStore(client, namespace, settings.leaseName),
      identity: holderIdentity(process.env["POD_NAME"] ?? hostname(), random),
      // Monotonic (a wall-clock step must not expire or extend a lease), on the epoch for the Lease's times.
      clock: { now: () => performance.timeOrigin + performance.now(), sleep: systemSleep },
      random,
      leaseDurationMs: settings.leaseDurationMs,
      renewDeadlineMs: settings.renewDeadlineMs,
      retryPeriodMs: settings.retryPeriodMs,
      onLog,
    });
  } catch (e) {
    return { ok: false, error: `--leader-elect-*: ${(e as Error).message}` };
  }

  let certificates: SecretCertificates | undefined;
  let tls: ServingTls | undefined;
  let dnsNames: string[] = [];
  if (secretFlag !== undefined) {
    const [secretNs, secretName] = secretFlag.includes("/") ? secretFlag.split("/", 2) : [namespace, secretFlag];
    if (secretNs === undefined || secretName === undefined || secretNs === "" || secretName === "")
      return { ok: false, error: `--tls-secret must be NAMESPACE/NAME or NAME (got ${JSON.stringify(secretFlag)})` };
    const service = settings.serviceName;
    const names = [
      ...(service !== undefined ? [`${service}.${secretNs}.svc`, `${service}.${secretNs}.svc.cluster.local`] : []),
      ...settings.dnsNames,
    ];
    dnsNames = names.filter((n) => isIP(n) === 0);
    const ips = names.filter((n) => isIP(n) !== 0);
    if (dnsNames.length === 0)
      return {
        ok: false,
        error: "--tls-secret needs --service-name NAME (its Service) or --dns-name NAME for the certificate's names",
      };
    certificates = new SecretCertificates({
      client,
      namespace: secretNs,
      name: secretName,
      elector,
      settings: {
        dnsNames,
        ips,
        renewBeforeMs: settings.renewBeforeMs,
        caOverlapMs: settings.caOverlapMs,
      },
      random,
      sleep: systemSleep,
      now: () => Date.now(),
      onLog,
    });
  }
  // Started first: on a fresh cluster this replica may be the one to write the Secret it waits for.
  elector.start();
  if (certificates !== undefined) tls = await secretTls(certificates, dnsNames);
  const store = certificates;
  return {
    ok: true,
    value: {
      elector,
      certificates,
      tls,
      bindMetrics: (registry) => {
        // Read at each scrape: isLeader() also turns false when renewals stopped without a tick.
        new Gauge({
          name: "bylaw_leader",
          help: "1 while this replica holds the leader election Lease (and alone writes shared objects), else 0",
          registers: [registry],
          collect() {
            this.set(elector.isLeader() ? 1 : 0);
          },
        });
      },
      withReadiness: (source) => (store === undefined ? source : withReadiness(source, () => store.readiness())),
      close: async () => {
        store?.close();
        await elector.stop();
        client.close();
      },
    },
  };
}

/**
 * The pair the HTTPS server starts with and its reloads. Until the Secret holds a certificate the
 * server presents a throwaway self-signed one (probes still answer, not ready) and switches as soon
 * as one arrives.
 */
async function secretTls(store: SecretCertificates, dnsNames: readonly string[]): Promise<ServingTls> {
  store.start();
  const initial = store.current() ?? (await firstCertificate(store, 5_000));
  let pair: { cert: string; key: string };
  let throwawayCa = "";
  if (initial !== undefined) pair = initial;
  else {
    const { selfSignedCertificate } = await import("../tls/self-signed.js");
    const made = selfSignedCertificate({ dnsNames, now: new Date(), days: 1 });
    pair = made;
    throwawayCa = made.caCert;
  }
  return {
    cert: pair.cert,
    key: pair.key,
    // What self-registration writes as caBundle: the Secret's bundle (new CA first, older ones kept).
    caPem: () => {
      const c = store.current();
      return c !== undefined ? Buffer.from(c.caBundle, "base64").toString("utf8") : throwawayCa;
    },
    onReload: (listener) => {
      store.onChange((c) => listener({ cert: c.cert, key: c.key }));
      const now = store.current();
      if (now !== undefined && now.cert !== pair.cert) listener({ cert: now.cert, key: now.key });
    },
    close: () => undefined,
  };
}

function firstCertificate(
  store: SecretCertificates,
  timeoutMs: number,
): Promise<{ cert: string; key: string } | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      off();
      resolve(undefined);
    }, timeoutMs);
    const off = store.onChange((c) => {
      clearTimeout(timer);
      off();
      resolve(c);
    });
  });
}

/** The source's readiness and `extra`'s: ready when both are, each reason named. */
export function withReadiness<S extends { readiness(): { ok: boolean; reason?: string } }>(
  source: S,
  extra: () => { ok: boolean; reason?: string },
): S {
  return new Proxy(source, {
    get(target, prop, receiver) {
      if (prop === "readiness") {
        return () => {
          const a = target.readiness();
          const b = extra();
          const reasons = [a.reason, b.reason].filter((r): r is string => r !== undefined);
          return { ok: a.ok && b.ok, ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {}) };
        };
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

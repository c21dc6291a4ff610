/**
 * `bylaw serve --leader-elect` and `--tls-secret`: leader election on a Lease and the certificate
 * Secret all replicas share (src/controllers/leader-election, src/controllers/tls-secret). What the rest of
 * serve plugs into: `elector` (isLeader/onChange: only the leader writes shared objects),
 * `certificates` (current/onChange: the serving pair and the caBundle to register), `tls` (the pair
 * the HTTPS server presents, reloaded as the Secret changes) and `withReadiness` (not ready until
 * the Secret holds a certificate).
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { isIP } from "node:net";
import { Gauge, type Registry } from "prom-client";
import { KubeClient } from "../../../kube/kube-client.js";
import { IN_CLUSTER_DIR, resolveConnection } from "../../../kube/kubeconfig.js";
import {
  holderIdentity,
  LeaseElector,
  type LeaderElector,
} from "../../../controllers/leader-election/lease-elector.js";
import { KubeLeaseStore } from "../../../kube/lease-store.js";
import { SecretCertificates, type CertificateStore } from "../../../controllers/tls-secret/secret-certificates.js";
import { DEFAULT_ROTATION } from "../../../controllers/tls-secret/cert-rotation.js";
import type { ServingTls } from "./tls-setup.js";
import { parseDuration } from "./duration.js";

export const HA_FLAG_OPTIONS = {
  "leader-elect": { type: "boolean", default: false },
  "leader-elect-lease": { type: "string", default: "bylaw-admission" },
  "leader-elect-namespace": { type: "string" },
  "leader-elect-lease-duration": { type: "string", default: "15s" },
  "leader-elect-renew-deadline": { type: "string", default: "10s" },
  "leader-elect-retry-period": { type: "string", default: "2s" },
  "tls-secret": { type: "string" },
  "service-name": { type: "string" },
  "tls-renew-before": { type: "string", default: "15d" },
  "tls-ca-overlap": { type: "string", default: "1m" },
} as const;

type Flags = {
  "leader-elect"?: boolean | undefined;
  "leader-elect-lease"?: string | undefined;
  "leader-elect-namespace"?: string | undefined;
  "leader-elect-lease-duration"?: string | undefined;
  "leader-elect-renew-deadline"?: string | undefined;
  "leader-elect-retry-period"?: string | undefined;
  "tls-secret"?: string | undefined;
  "service-name"?: string | undefined;
  "tls-renew-before"?: string | undefined;
  "tls-ca-overlap"?: string | undefined;
  "tls-cert-file"?: string | undefined;
  "self-signed"?: boolean | undefined;
  "dns-name"?: string[] | undefined;
  kubeconfig?: string | undefined;
};

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

/** This pod's namespace: POD_NAMESPACE, else the ServiceAccount's. */
function ownNamespace(): string | undefined {
  if (process.env["POD_NAMESPACE"] !== undefined && process.env["POD_NAMESPACE"] !== "")
    return process.env["POD_NAMESPACE"];
  try {
    return readFileSync(`${IN_CLUSTER_DIR}/namespace`, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

export async function setUpHa(
  values: Flags,
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
  const secretFlag = values["tls-secret"];
  if (values["leader-elect"] !== true && secretFlag === undefined) return { ok: true, value: none };
  if (secretFlag !== undefined && (values["tls-cert-file"] !== undefined || values["self-signed"] === true))
    return {
      ok: false,
      error: "use one of --tls-secret, --tls-cert-file/--tls-key-file (e.g. from cert-manager) or --self-signed",
    };
  if (secretFlag !== undefined && values["leader-elect"] !== true)
    return { ok: false, error: "--tls-secret needs --leader-elect: only the leader writes the Secret" };
  const durations: Record<string, number> = {};
  for (const k of [
    "leader-elect-lease-duration",
    "leader-elect-renew-deadline",
    "leader-elect-retry-period",
    "tls-renew-before",
    "tls-ca-overlap",
  ] as const) {
    const d = parseDuration(values[k] ?? "");
    if (d === undefined)
      return {
        ok: false,
        error: `--${k} must be a duration such as 500ms, 15s, 1m, 12h or 15d (got ${JSON.stringify(values[k])})`,
      };
    durations[k] = d;
  }
  const namespace = values["leader-elect-namespace"] ?? ownNamespace();
  if (namespace === undefined)
    return {
      ok: false,
      error:
        "--leader-elect needs --leader-elect-namespace NS outside a cluster (in a pod: POD_NAMESPACE or the ServiceAccount's namespace)",
    };
  const conn = resolveConnection({
    ...(values.kubeconfig !== undefined ? { kubeconfigFlag: values.kubeconfig } : {}),
    env: process.env,
    now: () => Date.now(),
  });
  if (!conn.ok) return { ok: false, error: `--leader-elect: ${conn.error.message}` };
  const client = new KubeClient({ connection: conn.value });
  const random = { next: Math.random };
  let elector: LeaseElector;
  try {
    elector = new LeaseElector({
      store: new KubeLeaseStore(client, namespace, values["leader-elect-lease"] ?? "bylaw-admission"),
      identity: holderIdentity(process.env["POD_NAME"] ?? hostname(), random),
      // Monotonic (a wall-clock step must not expire or extend a lease), on the epoch for the Lease's times.
      clock: { now: () => performance.timeOrigin + performance.now(), sleep: systemSleep },
      random,
      leaseDurationMs: durations["leader-elect-lease-duration"] as number,
      renewDeadlineMs: durations["leader-elect-renew-deadline"] as number,
      retryPeriodMs: durations["leader-elect-retry-period"] as number,
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
    const service = values["service-name"];
    const names = [
      ...(service !== undefined ? [`${service}.${secretNs}.svc`, `${service}.${secretNs}.svc.cluster.local`] : []),
      ...(values["dns-name"] ?? []),
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
        renewBeforeMs: durations["tls-renew-before"] ?? DEFAULT_ROTATION.renewBeforeMs,
        caOverlapMs: durations["tls-ca-overlap"] ?? DEFAULT_ROTATION.caOverlapMs,
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
    const { selfSignedCertificate } = await import("../../../server/tls/self-signed.js");
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

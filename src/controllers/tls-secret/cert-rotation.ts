/**
 * What the leader writes into the certificate Secret, decided from what the Secret holds now
 * (Kyverno's lifetimes: the CA for a year, the serving certificate for 150 days, each renewed 15
 * days before it expires):
 * - no usable CA (missing, unparsable, key not its own, expired): a new CA and serving certificate;
 * - the CA due for renewal, or a rotation asked for (ROTATE_ANNOTATION): a new CA is put first in
 *   `ca.crt`, the old ones kept after it, and the serving certificate is left as it is, so clients
 *   (the webhook configurations' caBundle) trust the new CA before any replica presents a
 *   certificate it signed. After `caOverlapMs` the serving certificate is reissued by the new CA;
 * - the serving certificate missing, not matching its key, not for the wanted names, not signed by
 *   a CA in the bundle, or due for renewal: reissued by the current CA;
 * - expired CAs are dropped from the bundle.
 */
import { X509Certificate, createPrivateKey } from "node:crypto";
import { generateKeyPem, mintCa, mintServing } from "../../platform/tls/certificate-authority.js";

/** The Secret's data (decoded PEM text), as Bylaw keeps it: kubernetes.io/tls keys plus the CA's. */
export interface TlsSecretData {
  readonly "tls.crt"?: string;
  readonly "tls.key"?: string;
  /** The CA bundle clients trust: the current CA first, then older ones still valid. */
  readonly "ca.crt"?: string;
  /** The current CA's private key (only the leader uses it). */
  readonly "ca.key"?: string;
}

/** Annotation asking the leader to rotate the CA now; it is removed when the rotation starts. */
export const ROTATE_ANNOTATION = "bylaw.dev/rotate-ca";
/** Annotation with the time (ISO) the current CA was put into the bundle. */
export const CA_ROTATED_ANNOTATION = "bylaw.dev/ca-rotated-at";

const DAY_MS = 86_400_000;

export interface RotationSettings {
  readonly dnsNames: readonly string[];
  readonly ips: readonly string[];
  readonly caValidityMs?: number;
  readonly certValidityMs?: number;
  /** Renew a certificate this long before it expires (default 15 days). */
  readonly renewBeforeMs?: number;
  /** Time between a new CA entering the bundle and the serving certificate it signs (default 1 minute). */
  readonly caOverlapMs?: number;
}

interface SecretState {
  readonly data: TlsSecretData;
  readonly rotateRequested: boolean;
  /** When the current CA entered the bundle (CA_ROTATED_ANNOTATION), if known. */
  readonly caRotatedAt?: number;
}

export type Plan =
  | { readonly kind: "keep"; readonly recheckInMs: number }
  | {
      readonly kind: "write";
      readonly data: Required<TlsSecretData>;
      readonly caRotatedAt: number | undefined;
      readonly reason: string;
    };

export const DEFAULT_ROTATION = {
  caValidityMs: 365 * DAY_MS,
  certValidityMs: 150 * DAY_MS,
  renewBeforeMs: 15 * DAY_MS,
  caOverlapMs: 60_000,
};
const MAX_RECHECK_MS = 12 * 3_600_000;

/** `newKey` makes each certificate's private key (default: node:crypto, off the main thread). */
export async function planRotation(
  state: SecretState,
  s: RotationSettings,
  now: number,
  newKey: () => Promise<string> = generateKeyPem,
): Promise<Plan> {
  const caValidityMs = s.caValidityMs ?? DEFAULT_ROTATION.caValidityMs;
  const certValidityMs = s.certValidityMs ?? DEFAULT_ROTATION.certValidityMs;
  const renewBeforeMs = Math.min(s.renewBeforeMs ?? DEFAULT_ROTATION.renewBeforeMs, certValidityMs / 2);
  const overlapMs = s.caOverlapMs ?? DEFAULT_ROTATION.caOverlapMs;
  const caName = `bylaw-webhook-ca (${s.dnsNames[0] ?? s.ips[0] ?? "bylaw"})`;
  const serve = async (ca: { cert: string; key: string }) =>
    mintServing(ca, s.dnsNames, s.ips, { now, validityMs: certValidityMs }, await newKey());
  const newCa = async () => mintCa(caName, { now, validityMs: caValidityMs }, await newKey());
  const bundle = parseBundle(state.data["ca.crt"]).filter((c) => expiry(c) > now);
  const current = currentCa(bundle, state.data["ca.key"]);
  if (current === undefined) {
    const ca = await newCa();
    const leaf = await serve(ca);
    return write(
      { cert: leaf.cert, key: leaf.key, caCerts: [ca.cert], caKey: ca.key },
      now,
      "the Secret holds no usable CA: a new CA and serving certificate",
    );
  }
  const caPem = current.cert.toString();
  const leaf = parseLeaf(state.data["tls.crt"], state.data["tls.key"]);
  const leafOk =
    leaf !== undefined &&
    expiry(leaf) - renewBeforeMs > now &&
    sameNames(leaf, s) &&
    bundle.some((c) => leaf.checkIssued(c) && leaf.verify(c.publicKey));
  const bundlePems = bundle.map((c) => c.toString());
  const caDue = expiry(current.cert) - renewBeforeMs <= now;
  if (state.rotateRequested || caDue) {
    const ca = await newCa();
    const why = state.rotateRequested
      ? `a CA rotation was asked for (${ROTATE_ANNOTATION})`
      : "the CA is due for renewal";
    if (!leafOk) {
      const fresh = await serve(ca);
      return write(
        { cert: fresh.cert, key: fresh.key, caCerts: [ca.cert, ...bundlePems], caKey: ca.key },
        now,
        `${why}; the serving certificate was unusable, reissued by the new CA`,
      );
    }
    return write(
      {
        cert: state.data["tls.crt"] ?? "",
        key: state.data["tls.key"] ?? "",
        caCerts: [ca.cert, ...bundlePems],
        caKey: ca.key,
      },
      now,
      `${why}: a new CA joins the bundle; the serving certificate follows in ${overlapMs} ms`,
    );
  }
  const rotatedAt = state.caRotatedAt ?? 0;
  const byCurrent = leafOk && leaf.checkIssued(current.cert) && leaf.verify(current.cert.publicKey);
  if (!leafOk || (!byCurrent && rotatedAt + overlapMs <= now)) {
    const fresh = await serve({ cert: caPem, key: state.data["ca.key"] ?? "" });
    const why = !leafOk
      ? "the serving certificate is missing, expiring, for other names or not signed by the bundle"
      : "the new CA has been trusted for the overlap";
    return write(
      { cert: fresh.cert, key: fresh.key, caCerts: bundlePems, caKey: state.data["ca.key"] ?? "" },
      state.caRotatedAt,
      `${why}: serving certificate reissued`,
    );
  }
  if (bundle.length !== parseBundle(state.data["ca.crt"]).length) {
    return write(
      {
        cert: state.data["tls.crt"] ?? "",
        key: state.data["tls.key"] ?? "",
        caCerts: bundlePems,
        caKey: state.data["ca.key"] ?? "",
      },
      state.caRotatedAt,
      "expired CAs dropped from the bundle",
    );
  }
  const due = [
    expiry(leaf) - renewBeforeMs,
    expiry(current.cert) - renewBeforeMs,
    ...bundle.map(expiry),
    ...(byCurrent ? [] : [rotatedAt + overlapMs]),
  ];
  return { kind: "keep", recheckInMs: Math.max(1_000, Math.min(MAX_RECHECK_MS, Math.min(...due) - now)) };
}

function write(
  p: { cert: string; key: string; caCerts: string[]; caKey: string },
  caRotatedAt: number | undefined,
  reason: string,
): Plan {
  return {
    kind: "write",
    data: { "tls.crt": p.cert, "tls.key": p.key, "ca.crt": [...new Set(p.caCerts)].join(""), "ca.key": p.caKey },
    caRotatedAt,
    reason,
  };
}

function expiry(c: X509Certificate): number {
  return Date.parse(c.validTo);
}

/** Every certificate in a PEM bundle that parses. */
export function parseBundle(pem: string | undefined): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const block of (pem ?? "").match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? []) {
    try {
      out.push(new X509Certificate(block.endsWith("\n") ? block : `${block}\n`));
    } catch {
      // not a certificate: left out
    }
  }
  return out;
}

function currentCa(bundle: X509Certificate[], keyPem: string | undefined): { cert: X509Certificate } | undefined {
  if (keyPem === undefined || keyPem === "") return undefined;
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    return undefined;
  }
  const cert = bundle.find((c) => c.ca && c.checkPrivateKey(key));
  return cert === undefined ? undefined : { cert };
}

function parseLeaf(certPem: string | undefined, keyPem: string | undefined): X509Certificate | undefined {
  try {
    const leaf = new X509Certificate(certPem ?? "");
    return leaf.checkPrivateKey(createPrivateKey(keyPem ?? "")) ? leaf : undefined;
  } catch {
    return undefined;
  }
}

function sameNames(leaf: X509Certificate, s: RotationSettings): boolean {
  const want = [...s.dnsNames.map((n) => `DNS:${n}`), ...s.ips.map((ip) => `IP Address:${ip}`)].sort();
  const have = (leaf.subjectAltName ?? "")
    .split(", ")
    .filter((x) => x !== "")
    .sort();
  return want.length === have.length && want.every((w, i) => w === have[i]);
}

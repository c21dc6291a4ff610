/**
 * Which TLS the webhook speaks: the lowest protocol version and the cipher suites, from flags.
 * The default is TLS 1.2 and up with forward-secret AEAD suites only: ECDHE key exchange with
 * AES-GCM or ChaCha20-Poly1305 for TLS 1.2, and TLS 1.3's own suites (all AEAD, all forward
 * secret). The Kubernetes API server (Go) offers all of these. Suites can be named as OpenSSL
 * does (ECDHE-RSA-AES128-GCM-SHA256) or as IANA and Go do (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256).
 */
import { createSecureContext } from "node:tls";

type TlsMinVersion = "TLSv1.2" | "TLSv1.3";

export interface TlsPolicy {
  readonly minVersion: TlsMinVersion;
  /** OpenSSL's colon-separated list, TLS 1.3 suites included. */
  readonly ciphers: string;
}

/** IANA (and Go's crypto/tls) names of the default suites, with their OpenSSL names. */
const IANA_TO_OPENSSL: Readonly<Record<string, string>> = {
  TLS_AES_128_GCM_SHA256: "TLS_AES_128_GCM_SHA256",
  TLS_AES_256_GCM_SHA384: "TLS_AES_256_GCM_SHA384",
  TLS_CHACHA20_POLY1305_SHA256: "TLS_CHACHA20_POLY1305_SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
};

const DEFAULT_CIPHER_SUITES: readonly string[] = Object.values(IANA_TO_OPENSSL);
export const DEFAULT_TLS_POLICY: TlsPolicy = { minVersion: "TLSv1.2", ciphers: DEFAULT_CIPHER_SUITES.join(":") };

const VERSIONS: Readonly<Record<string, TlsMinVersion>> = {
  "1.2": "TLSv1.2",
  "tlsv1.2": "TLSv1.2",
  versiontls12: "TLSv1.2",
  "1.3": "TLSv1.3",
  "tlsv1.3": "TLSv1.3",
  versiontls13: "TLSv1.3",
};

/**
 * The policy from `--tls-min-version` and `--tls-cipher-suites` (comma-separated), or why a value
 * is refused. Versions below 1.2 are refused outright. Each suite must be one OpenSSL knows;
 * a suite it does not know is an error rather than silently left out of the list.
 */
export function tlsPolicyFrom(
  minVersion: string | undefined,
  cipherSuites: string | undefined,
): { ok: true; value: TlsPolicy } | { ok: false; error: string } {
  let version: TlsMinVersion = DEFAULT_TLS_POLICY.minVersion;
  if (minVersion !== undefined) {
    const v = VERSIONS[minVersion.trim().toLowerCase()];
    if (v === undefined)
      return {
        ok: false,
        error: `--tls-min-version must be 1.2 or 1.3 (TLSv1.2, VersionTLS12, …), got ${JSON.stringify(minVersion)}`,
      };
    version = v;
  }
  if (cipherSuites === undefined)
    return { ok: true, value: { minVersion: version, ciphers: DEFAULT_TLS_POLICY.ciphers } };
  const names = cipherSuites
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (names.length === 0) return { ok: false, error: "--tls-cipher-suites is empty" };
  const openssl: string[] = [];
  for (const name of names) {
    const mapped = IANA_TO_OPENSSL[name] ?? name;
    if (!knownSuite(mapped))
      return {
        ok: false,
        error: `--tls-cipher-suites: ${JSON.stringify(name)} is not a cipher suite this OpenSSL knows; name TLS 1.2 suites as OpenSSL does or as the defaults are named (e.g. ECDHE-RSA-AES128-GCM-SHA256 or TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)`,
      };
    openssl.push(mapped);
  }
  return { ok: true, value: { minVersion: version, ciphers: openssl.join(":") } };
}

/** TLS 1.3 suites (OpenSSL takes these names without checking them, so they are checked here). */
const TLS13_SUITES = new Set([
  "TLS_AES_128_GCM_SHA256",
  "TLS_AES_256_GCM_SHA384",
  "TLS_CHACHA20_POLY1305_SHA256",
  "TLS_AES_128_CCM_SHA256",
  "TLS_AES_128_CCM_8_SHA256",
]);

function knownSuite(name: string): boolean {
  if (name.startsWith("TLS_")) return TLS13_SUITES.has(name);
  // One suite, not an OpenSSL expression such as HIGH or DEFAULT@SECLEVEL=0.
  if (!/^[A-Za-z0-9]+[-_][A-Za-z0-9_-]+$/.test(name)) return false;
  try {
    createSecureContext({ ciphers: name });
    return true;
  } catch {
    return false;
  }
}

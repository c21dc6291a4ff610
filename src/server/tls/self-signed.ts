/**
 * Mint a private CA and a serving certificate signed by it, for `bylaw serve --self-signed`: the
 * webhook configuration trusts the CA through its caBundle, and the server presents the leaf.
 * Keys are RSA 2048 (node-forge delegates generation to node:crypto), signatures SHA-256.
 */
import { mintCa, mintServing } from "../../platform/tls/certificate-authority.js";
import type { SelfSignedBundle, SelfSignedOptions } from "./types.js";

const DAY_MS = 86_400_000;
const DNS_NAME = /^(\*\.)?[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/i;

/** Throws a RangeError for bad input (no names, a name that is not a DNS name, non-positive days). */
export function selfSignedCertificate(options: SelfSignedOptions): SelfSignedBundle {
  const dnsNames = [...new Set(options.dnsNames)];
  if (options.includeLoopback === true && !dnsNames.includes("localhost")) dnsNames.push("localhost");
  if (dnsNames.length === 0)
    throw new RangeError("a self-signed certificate needs at least one DNS name (e.g. --dns-name bylaw.bylaw.svc)");
  for (const name of dnsNames) {
    if (!DNS_NAME.test(name) || name.length > 253)
      throw new RangeError(`"${name}" is not a valid DNS name for a certificate`);
  }
  const days = options.days ?? 365;
  if (!Number.isFinite(days) || days <= 0)
    throw new RangeError(`certificate validity must be a positive number of days, got ${days}`);
  const commonName = dnsNames[0] as string;
  const mint = { now: options.now.getTime(), validityMs: days * DAY_MS };
  const ca = mintCa(`bylaw-webhook-ca (${commonName})`, mint);
  const leaf = mintServing(ca, dnsNames, options.includeLoopback === true ? ["127.0.0.1"] : [], mint);
  return { caCert: ca.cert, cert: leaf.cert, key: leaf.key, caBundle: Buffer.from(ca.cert, "utf8").toString("base64") };
}

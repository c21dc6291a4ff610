/**
 * Mint a private CA and a serving certificate signed by it, for `bylaw serve --self-signed`: the
 * webhook configuration trusts the CA through its caBundle, and the server presents the leaf.
 * Keys are RSA 2048 (node-forge delegates generation to node:crypto), signatures SHA-256.
 */
import { randomBytes } from "node:crypto";
import forge from "node-forge";
import type { SelfSignedBundle, SelfSignedOptions } from "./types.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const DNS_NAME = /^(\*\.)?[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/i;

/** Throws a RangeError for bad input (no names, a name that is not a DNS name, non-positive days). */
export function selfSignedCertificate(options: SelfSignedOptions): SelfSignedBundle {
  const dnsNames = [...new Set(options.dnsNames)];
  if (options.includeLoopback === true && !dnsNames.includes("localhost")) dnsNames.push("localhost");
  if (dnsNames.length === 0) throw new RangeError("a self-signed certificate needs at least one DNS name (e.g. --dns-name bylaw.bylaw.svc)");
  for (const name of dnsNames) {
    if (!DNS_NAME.test(name) || name.length > 253) throw new RangeError(`"${name}" is not a valid DNS name for a certificate`);
  }
  const days = options.days ?? 365;
  if (!Number.isFinite(days) || days <= 0) throw new RangeError(`certificate validity must be a positive number of days, got ${days}`);
  const commonName = dnsNames[0] as string;
  // Backdated an hour so that a peer whose clock runs a little behind still accepts it.
  const notBefore = new Date(options.now.getTime() - HOUR_MS);
  const notAfter = new Date(options.now.getTime() + days * DAY_MS);

  const caKeys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const caSubject = [
    { name: "commonName", value: `bylaw-webhook-ca (${commonName})` },
    { name: "organizationName", value: "bylaw" },
  ];
  const ca = newCertificate(caKeys.publicKey, notBefore, notAfter);
  ca.setSubject(caSubject);
  ca.setIssuer(caSubject);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const leafKeys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const leaf = newCertificate(leafKeys.publicKey, notBefore, notAfter);
  leaf.setSubject([{ name: "commonName", value: commonName }]);
  leaf.setIssuer(caSubject);
  const altNames: object[] = dnsNames.map((value) => ({ type: 2, value }));
  if (options.includeLoopback === true) altNames.push({ type: 7, ip: "127.0.0.1" });
  leaf.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  leaf.sign(caKeys.privateKey, forge.md.sha256.create());

  const caCert = forge.pki.certificateToPem(ca);
  return {
    caCert,
    cert: forge.pki.certificateToPem(leaf),
    key: forge.pki.privateKeyToPem(leafKeys.privateKey),
    caBundle: Buffer.from(caCert, "utf8").toString("base64"),
  };
}

function newCertificate(publicKey: forge.pki.PublicKey, notBefore: Date, notAfter: Date): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  return cert;
}

/** 128 random bits as a positive, minimally encoded DER integer (strict parsers such as Go's reject others). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] as number) & 0x7f || 0x01;
  return bytes.toString("hex");
}

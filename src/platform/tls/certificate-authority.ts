/**
 * Minting a private CA and serving certificates it signs (node-forge; RSA 2048, SHA-256), for
 * `--self-signed` and for the certificate Secret the leader keeps (controllers/tls-secret/cert-rotation.ts). Inputs are
 * checked by the callers (controllers/tls-secret, server/tls/self-signed.ts); names and IPs go into the SANs as given.
 */
import { generateKeyPair, randomBytes } from "node:crypto";
import forge from "node-forge";
import type { TlsPair } from "./tls-pair.js";

const HOUR_MS = 3_600_000;

interface MintOptions {
  /** Issue time (epoch ms); notBefore is backdated an hour so that a peer whose clock lags accepts it. */
  readonly now: number;
  /** Validity from `now`, in milliseconds. */
  readonly validityMs: number;
}

/**
 * A new RSA 2048 private key (PEM), generated off the main thread by node:crypto: a server mints
 * with these, so that the key generation (0.2-0.7 s) does not hold up its reviews.
 */
export function generateKeyPem(): Promise<string> {
  return new Promise((resolve, reject) =>
    generateKeyPair(
      "rsa",
      {
        modulusLength: 2048,
        publicExponent: 0x10001,
        publicKeyEncoding: { type: "spki", format: "pem" },
        privateKeyEncoding: { type: "pkcs8", format: "pem" },
      },
      (e, _pub, key) => (e !== null ? reject(e) : resolve(key)),
    ),
  );
}

/** The key pair for a certificate: from `keyPem` (generateKeyPem), or generated here, synchronously. */
function keyPair(keyPem: string | undefined): {
  publicKey: forge.pki.rsa.PublicKey;
  privateKey: forge.pki.rsa.PrivateKey;
} {
  if (keyPem === undefined) return forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const privateKey = forge.pki.privateKeyFromPem(keyPem);
  return { privateKey, publicKey: forge.pki.setRsaPublicKey(privateKey.n, privateKey.e) };
}

/** A CA certificate (cert) and its private key (key), PEM. */
export function mintCa(commonName: string, o: MintOptions, keyPem?: string): TlsPair {
  const keys = keyPair(keyPem);
  const subject = [
    { name: "commonName", value: commonName },
    { name: "organizationName", value: "bylaw" },
  ];
  const ca = newCertificate(keys.publicKey, o);
  ca.setSubject(subject);
  ca.setIssuer(subject);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: pem(forge.pki.certificateToPem(ca)), key: pem(forge.pki.privateKeyToPem(keys.privateKey)) };
}

/** A serverAuth leaf for `dnsNames` (the first is its CN) and `ips`, signed by `ca`. */
export function mintServing(
  ca: TlsPair,
  dnsNames: readonly string[],
  ips: readonly string[],
  o: MintOptions,
  keyPem?: string,
): TlsPair {
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const caKey = forge.pki.privateKeyFromPem(ca.key);
  const keys = keyPair(keyPem);
  const leaf = newCertificate(keys.publicKey, o);
  leaf.setSubject([{ name: "commonName", value: dnsNames[0] ?? ips[0] ?? "bylaw" }]);
  leaf.setIssuer(caCert.subject.attributes);
  const altNames: object[] = [...dnsNames.map((value) => ({ type: 2, value })), ...ips.map((ip) => ({ type: 7, ip }))];
  leaf.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  leaf.sign(caKey, forge.md.sha256.create());
  return { cert: pem(forge.pki.certificateToPem(leaf)), key: pem(forge.pki.privateKeyToPem(keys.privateKey)) };
}

/** PEM with \n line ends (forge writes \r\n; node:crypto and the API server's copies use \n). */
function pem(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

function newCertificate(publicKey: forge.pki.PublicKey, o: MintOptions): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(o.now - HOUR_MS);
  cert.validity.notAfter = new Date(o.now + o.validityMs);
  return cert;
}

/** 128 random bits as a positive, minimally encoded DER integer (strict parsers such as Go's reject others). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] as number) & 0x7f || 0x01;
  return bytes.toString("hex");
}

/** Test helper: a CA and a client certificate it signed (extKeyUsage clientAuth), as an API server would present. */
import { randomBytes } from "node:crypto";
import forge from "node-forge";

export interface ClientCertificate {
  readonly caCert: string;
  readonly cert: string;
  readonly key: string;
}

export function clientCertificate(commonName: string): ClientCertificate {
  const now = Date.now();
  const caKeys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const caSubject = [{ name: "commonName", value: `${commonName} client CA` }];
  const ca = certificate(caKeys.publicKey, now);
  ca.setSubject(caSubject);
  ca.setIssuer(caSubject);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, digitalSignature: true, critical: true },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const leaf = certificate(keys.publicKey, now);
  leaf.setSubject([{ name: "commonName", value: commonName }]);
  leaf.setIssuer(caSubject);
  leaf.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", clientAuth: true },
  ]);
  leaf.sign(caKeys.privateKey, forge.md.sha256.create());
  return {
    caCert: forge.pki.certificateToPem(ca),
    cert: forge.pki.certificateToPem(leaf),
    key: forge.pki.privateKeyToPem(keys.privateKey),
  };
}

function certificate(publicKey: forge.pki.PublicKey, now: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  const serial = randomBytes(16);
  serial[0] = (serial[0] as number) & 0x7f || 1;
  cert.serialNumber = serial.toString("hex");
  cert.validity.notBefore = new Date(now - 3_600_000);
  cert.validity.notAfter = new Date(now + 86_400_000);
  return cert;
}

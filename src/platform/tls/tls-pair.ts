/** A PEM certificate and its private key, and the check that they parse and belong together. */
import { X509Certificate, createPrivateKey } from "node:crypto";
import { err, ok, type Result } from "../../engine/index.js";

export interface TlsPair {
  readonly cert: string;
  readonly key: string;
}

/** Check an in-memory pair; the paths only make the messages point at the right file. */
export function checkTlsPair(pair: TlsPair, where: { certPath: string; keyPath: string }): Result<TlsPair> {
  const { certPath, keyPath } = where;
  if (!pair.cert.includes("-----BEGIN CERTIFICATE-----")) {
    return err(
      "tls-not-pem",
      `TLS certificate file ${certPath} is not a PEM certificate (no "-----BEGIN CERTIFICATE-----" block)`,
    );
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pair.key)) {
    return err(
      "tls-not-pem",
      `TLS key file ${keyPath} is not a PEM private key (no "-----BEGIN ... PRIVATE KEY-----" block)`,
    );
  }
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(pair.cert);
  } catch (e) {
    return err("tls-invalid-certificate", `TLS certificate file ${certPath} cannot be parsed: ${messageOf(e)}`);
  }
  let keyObject;
  try {
    keyObject = createPrivateKey(pair.key);
  } catch (e) {
    return err(
      "tls-invalid-key",
      `TLS key file ${keyPath} cannot be parsed (encrypted keys are not supported): ${messageOf(e)}`,
    );
  }
  if (!x509.checkPrivateKey(keyObject)) {
    return err(
      "tls-key-mismatch",
      `TLS key file ${keyPath} does not match the certificate in ${certPath} (subject ${x509.subject.replace(/\n/g, ", ")}); they must be a pair`,
    );
  }
  return ok(pair);
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

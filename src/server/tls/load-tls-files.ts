/** Read a certificate and key from disk and check that they are PEM, parse, and belong together. */
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import { err, ok, type Result } from "../../engine/index.js";
import type { TlsPair } from "./types.js";

export async function loadTlsFiles(certPath: string, keyPath: string): Promise<Result<TlsPair>> {
  const cert = await readText(certPath, "certificate");
  if (!cert.ok) return cert;
  const key = await readText(keyPath, "private key");
  if (!key.ok) return key;
  return checkTlsPair({ cert: cert.value, key: key.value }, { certPath, keyPath });
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

async function readText(path: string, what: string): Promise<Result<string>> {
  try {
    return ok(await readFile(path, "utf8"));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return err("tls-file-missing", `TLS ${what} file ${path} does not exist`);
    if (code === "EISDIR") return err("tls-file-unreadable", `TLS ${what} path ${path} is a directory, not a file`);
    return err("tls-file-unreadable", `TLS ${what} file ${path} cannot be read: ${messageOf(e)}`);
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

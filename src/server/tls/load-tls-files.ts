/** Read a certificate and key from disk and check that they are PEM, parse, and belong together. */
import { readFile } from "node:fs/promises";
import { err, ok, type Result } from "../../engine/index.js";
import { checkTlsPair } from "../../platform/tls/tls-pair.js";
import type { TlsPair } from "./types.js";

export async function loadTlsFiles(certPath: string, keyPath: string): Promise<Result<TlsPair>> {
  const cert = await readText(certPath, "certificate");
  if (!cert.ok) return cert;
  const key = await readText(keyPath, "private key");
  if (!key.ok) return key;
  return checkTlsPair({ cert: cert.value, key: key.value }, { certPath, keyPath });
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

/** The serving certificate for `bylaw serve`: files (watched and reloaded) or a self-signed pair. */
import { readFile } from "node:fs/promises";
import { writeYaml } from "../../platform/yaml/index.js";
import { loadTlsFiles, watchTls } from "../tls/index.js";

/** Where serve writes: the caBundle to stdout, diagnostics to stderr (the CLI's Io). */
export interface ServeOutput {
  out(text: string): void;
  err(text: string): void;
}

export interface ServingTls {
  readonly cert: string;
  readonly key: string;
  /**
   * The PEM CA the API server must trust (a webhook configuration's caBundle, for --register): the
   * self-signed CA, else --tls-ca-file, else the certificate file itself (its chain, or a self-signed leaf).
   */
  caPem(): string;
  /** Called with each reloaded pair once the server is up. */
  onReload(listener: (tls: { cert: string; key: string }) => void): void;
  close(): void;
}

/** The TLS flags as given (checked here: which of files or a self-signed pair, and the files readable). */
export type TlsFiles = {
  "tls-ca-file"?: string | undefined;
  "tls-cert-file"?: string | undefined;
  "tls-key-file"?: string | undefined;
  "self-signed"?: boolean | undefined;
  "dns-name"?: string[] | undefined;
};

export async function resolveTls(
  values: TlsFiles,
  io: ServeOutput,
): Promise<{ ok: true; value: ServingTls } | { ok: false; error: string }> {
  const certFile = values["tls-cert-file"];
  const keyFile = values["tls-key-file"];
  if (values["self-signed"]) {
    if (certFile !== undefined || keyFile !== undefined)
      return { ok: false, error: "use either --self-signed or --tls-cert-file/--tls-key-file, not both" };
    const names = values["dns-name"] ?? [];
    if (names.length === 0)
      return { ok: false, error: "--self-signed needs at least one --dns-name (e.g. bylaw.bylaw.svc)" };
    // node-forge (about 10 MiB resident) is loaded only when a certificate is minted.
    const { selfSignedCertificate } = await import("../tls/self-signed.js");
    const bundle = selfSignedCertificate({ dnsNames: names, now: new Date(), includeLoopback: true });
    io.out(writeYaml({ caBundle: bundle.caBundle }).trimEnd());
    io.err(
      "bylaw serve: self-signed certificate created; put the caBundle above into the webhook configurations' clientConfig.caBundle",
    );
    return {
      ok: true,
      value: {
        cert: bundle.cert,
        key: bundle.key,
        caPem: () => bundle.caCert,
        onReload: () => undefined,
        close: () => undefined,
      },
    };
  }
  if (certFile === undefined || keyFile === undefined)
    return { ok: false, error: "give --tls-cert-file and --tls-key-file, or --self-signed --dns-name NAME" };
  const loaded = await loadTlsFiles(certFile, keyFile);
  if (!loaded.ok) return { ok: false, error: loaded.error.message };
  const caFile = values["tls-ca-file"];
  let ca = loaded.value.cert;
  if (caFile !== undefined) {
    try {
      ca = await readFile(caFile, "utf8");
    } catch (e) {
      return { ok: false, error: `--tls-ca-file ${caFile}: ${(e as Error).message}` };
    }
  }
  const listeners: ((tls: { cert: string; key: string }) => void)[] = [];
  // A renewed certificate may come with a new CA (the Secret's ca.crt changes with it): read it again before telling anyone.
  const reloaded = (tls: { cert: string; key: string }): void => {
    if (caFile === undefined) {
      ca = tls.cert;
      listeners.forEach((l) => l(tls));
      return;
    }
    readFile(caFile, "utf8").then(
      (text) => {
        ca = text;
        listeners.forEach((l) => l(tls));
      },
      (e: Error) => {
        io.err(
          `bylaw serve: --tls-ca-file ${caFile} could not be read again, keeping the CA registered before: ${e.message}`,
        );
        listeners.forEach((l) => l(tls));
      },
    );
  };
  const watch = watchTls(certFile, keyFile, reloaded, (e) =>
    io.err(`bylaw serve: TLS reload failed, keeping the current certificate: ${e.message}`),
  );
  return {
    ok: true,
    value: { ...loaded.value, caPem: () => ca, onReload: (l) => listeners.push(l), close: () => watch.close() },
  };
}

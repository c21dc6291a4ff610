/** The --loki-* flags of `bylaw kube-bench` as a Loki connection, or the reason they do not make one. */
import { readFile } from "node:fs/promises";
import type { LokiAuth, LokiConnection, LokiTls } from "../../../platform/loki/index.js";
import type { KubeBenchFlags } from "./command.js";

async function readFlagFile(flag: string, file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined;
  try {
    return await readFile(file, "utf8");
  } catch (e) {
    throw new Error(`${flag} ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

function pushUrl(raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `--loki ${raw} is not a URL (e.g. http://loki-gateway/loki/api/v1/push)`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `--loki ${raw}: use an http or https URL`;
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/loki/api/v1/push";
  return url;
}

async function auth(values: KubeBenchFlags): Promise<LokiAuth | undefined> {
  const token = await readFlagFile("--loki-bearer-token-file", values["loki-bearer-token-file"]);
  if (token !== undefined && values["loki-username"] !== undefined)
    throw new Error("give --loki-username or --loki-bearer-token-file, not both");
  if (token !== undefined) return { bearerToken: token.trim() };
  if (values["loki-username"] === undefined) return undefined;
  const password = process.env["LOKI_PASSWORD"];
  if (password === undefined) throw new Error("--loki-username needs the password in $LOKI_PASSWORD");
  return { basic: { username: values["loki-username"], password } };
}

async function tls(values: KubeBenchFlags): Promise<LokiTls> {
  const [ca, cert, key] = await Promise.all([
    readFlagFile("--loki-ca-file", values["loki-ca-file"]),
    readFlagFile("--loki-cert-file", values["loki-cert-file"]),
    readFlagFile("--loki-key-file", values["loki-key-file"]),
  ]);
  if ((cert === undefined) !== (key === undefined)) throw new Error("--loki-cert-file and --loki-key-file go together");
  return {
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
    ...(values["loki-insecure-skip-tls-verify"] ? { insecureSkipVerify: true } : {}),
  };
}

export async function lokiConnection(values: KubeBenchFlags, timeoutMs: number): Promise<LokiConnection | string> {
  const url = pushUrl(values.loki ?? "");
  if (typeof url === "string") return url;
  if (values["loki-encoding"] !== "protobuf" && values["loki-encoding"] !== "json")
    return `--loki-encoding ${values["loki-encoding"]}: use protobuf or json`;
  try {
    const a = await auth(values);
    return {
      url: url.toString(),
      ...(values["loki-tenant"] !== undefined ? { tenant: values["loki-tenant"] } : {}),
      ...(a !== undefined ? { auth: a } : {}),
      tls: await tls(values),
      timeoutMs: Math.min(timeoutMs, 10_000),
    };
  } catch (e) {
    return (e as Error).message;
  }
}

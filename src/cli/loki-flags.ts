/**
 * The --loki-* flags, one parser for every command that sends to Loki (`bylaw kube-bench`, and
 * `bylaw serve --component monitoring`): the push URL, tenant, encoding, extra stream labels,
 * basic (password in $LOKI_PASSWORD) or bearer auth, and TLS.
 */
import { readFile } from "node:fs/promises";
import type { LokiAuth, LokiConnection, LokiTls } from "../platform/loki/index.js";

export const LOKI_FLAG_OPTIONS = {
  loki: { type: "string" },
  "loki-tenant": { type: "string" },
  "loki-encoding": { type: "string", default: "protobuf" },
  "loki-label": { type: "string", multiple: true },
  "loki-username": { type: "string" },
  "loki-bearer-token-file": { type: "string" },
  "loki-ca-file": { type: "string" },
  "loki-cert-file": { type: "string" },
  "loki-key-file": { type: "string" },
  "loki-insecure-skip-tls-verify": { type: "boolean", default: false },
} as const;

/** The --loki-* flags as parsed. */
export interface LokiFlags {
  readonly loki?: string | undefined;
  readonly "loki-tenant"?: string | undefined;
  readonly "loki-encoding"?: string | undefined;
  readonly "loki-label"?: string[] | undefined;
  readonly "loki-username"?: string | undefined;
  readonly "loki-bearer-token-file"?: string | undefined;
  readonly "loki-ca-file"?: string | undefined;
  readonly "loki-cert-file"?: string | undefined;
  readonly "loki-key-file"?: string | undefined;
  readonly "loki-insecure-skip-tls-verify"?: boolean | undefined;
}

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

async function auth(values: LokiFlags): Promise<LokiAuth | undefined> {
  const token = await readFlagFile("--loki-bearer-token-file", values["loki-bearer-token-file"]);
  if (token !== undefined && values["loki-username"] !== undefined)
    throw new Error("give --loki-username or --loki-bearer-token-file, not both");
  if (token !== undefined) return { bearerToken: token.trim() };
  if (values["loki-username"] === undefined) return undefined;
  const password = process.env["LOKI_PASSWORD"];
  if (password === undefined) throw new Error("--loki-username needs the password in $LOKI_PASSWORD");
  return { basic: { username: values["loki-username"], password } };
}

async function tls(values: LokiFlags): Promise<LokiTls> {
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

/** `--loki-label NAME=VALUE` pairs as labels, or the one that is not NAME=VALUE. */
export function lokiLabels(pairs: readonly string[]): Record<string, string> | string {
  const labels: Record<string, string> = {};
  for (const p of pairs) {
    const at = p.indexOf("=");
    if (at <= 0) return `--loki-label ${JSON.stringify(p)} is not NAME=VALUE`;
    labels[p.slice(0, at)] = p.slice(at + 1);
  }
  return labels;
}

export async function lokiConnection(values: LokiFlags, timeoutMs: number): Promise<LokiConnection | string> {
  const url = pushUrl(values.loki ?? "");
  if (typeof url === "string") return url;
  const encoding = values["loki-encoding"] ?? "protobuf";
  if (encoding !== "protobuf" && encoding !== "json") return `--loki-encoding ${encoding}: use protobuf or json`;
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

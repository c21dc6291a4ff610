/**
 * Where and how a Loki push goes: the URL, the tenant (X-Scope-OrgID), basic or bearer
 * authentication, extra headers and TLS; and one POST of a body, whose outcome says whether the
 * batch is in, is worth sending again (no answer, 429, 5xx) or was refused (any other status).
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

export type LokiAuth =
  { readonly basic: { readonly username: string; readonly password: string } } | { readonly bearerToken: string };

export interface LokiTls {
  /** PEM roots to trust instead of the system's. */
  readonly ca?: string;
  /** A client certificate and key (PEM), for a receiver that asks for one. */
  readonly cert?: string;
  readonly key?: string;
  /** Do not verify the server's certificate (testing only). */
  readonly insecureSkipVerify?: boolean;
}

export interface LokiConnection {
  /** The push endpoint, e.g. https://loki.example:3100/loki/api/v1/push. */
  readonly url: string;
  /** Sent as X-Scope-OrgID (Loki's tenant); none when Loki runs without auth. */
  readonly tenant?: string;
  readonly auth?: LokiAuth;
  readonly headers?: Readonly<Record<string, string>>;
  readonly tls?: LokiTls;
  /** Connect to last byte of one push (default 10 s). */
  readonly timeoutMs?: number;
}

type PushOutcome =
  | { readonly kind: "sent" }
  | { readonly kind: "retry"; readonly reason: string }
  | { readonly kind: "refused"; readonly reason: string };

function authHeader(auth: LokiAuth): string {
  if ("bearerToken" in auth) return `Bearer ${auth.bearerToken}`;
  return `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString("base64")}`;
}

/** The headers of every push on this connection, besides Content-Type. */
export function connectionHeaders(connection: LokiConnection): Record<string, string> {
  return {
    ...connection.headers,
    ...(connection.tenant !== undefined ? { "X-Scope-OrgID": connection.tenant } : {}),
    ...(connection.auth !== undefined ? { Authorization: authHeader(connection.auth) } : {}),
  };
}

function tlsOptions(tls: LokiTls | undefined): Record<string, unknown> {
  return {
    minVersion: "TLSv1.2",
    ...(tls?.ca !== undefined ? { ca: tls.ca } : {}),
    ...(tls?.cert !== undefined ? { cert: tls.cert } : {}),
    ...(tls?.key !== undefined ? { key: tls.key } : {}),
    ...(tls?.insecureSkipVerify === true ? { rejectUnauthorized: false } : {}),
  };
}

function outcomeOf(status: number, body: string): PushOutcome {
  if (status >= 200 && status < 300) return { kind: "sent" };
  const reason = `Loki answered ${status}${body.trim() !== "" ? `: ${body.trim().slice(0, 300)}` : ""}`;
  return status === 429 || status >= 500 ? { kind: "retry", reason } : { kind: "refused", reason };
}

/** One POST of a push body; it never throws: a failure is an outcome. */
export function postPush(
  connection: LokiConnection,
  body: { readonly contentType: string; readonly bytes: string | Uint8Array },
): Promise<PushOutcome> {
  const url = new URL(connection.url);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((done) => {
    let settled = false;
    const finish = (o: PushOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      done(o);
    };
    const req = send(
      url,
      {
        method: "POST",
        agent: false,
        headers: { ...connectionHeaders(connection), "Content-Type": body.contentType },
        ...(url.protocol === "https:" ? tlsOptions(connection.tls) : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.length < 64 && chunks.push(c));
        res.on("end", () => finish(outcomeOf(res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8"))));
        res.on("error", (e) => finish({ kind: "retry", reason: `reading Loki's answer failed: ${e.message}` }));
      },
    );
    const timeoutMs = connection.timeoutMs ?? 10_000;
    const timer = setTimeout(
      () => finish({ kind: "retry", reason: `no answer from ${url.host} in ${timeoutMs} ms` }),
      timeoutMs,
    );
    req.on("error", (e) => finish({ kind: "retry", reason: `pushing to ${url.host} failed: ${e.message}` }));
    req.end(body.bytes);
  });
}

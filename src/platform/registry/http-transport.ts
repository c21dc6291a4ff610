/**
 * One HTTP exchange for the registry client: a GET or HEAD, no redirect followed (the client
 * follows them itself, each hop through this transport again), a time limit and a body cap. A
 * caller that must confine where requests go (serve's egress filter) passes `checkUrl`, called
 * before connecting, and `lookup`, the socket's name resolution, which checks every address.
 */
import type { LookupFunction } from "node:net";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { err, ok, type Result } from "../../engine/index.js";

export interface HttpAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
}

export interface HttpExchange {
  readonly method: "GET" | "HEAD";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type Transport = (exchange: HttpExchange, signal?: AbortSignal) => Promise<Result<HttpAnswer>>;

export interface TransportOptions {
  /** Connect to last byte (default 10 s). */
  readonly timeoutMs?: number;
  /** Largest body read (default 10,000,000 bytes, Kyverno's payload cap). */
  readonly maxBytes?: number;
  /** PEM roots to trust instead of the system's (tests, private registries). */
  readonly ca?: string;
  /** Refuses a URL before any connection (an error value naming why). */
  readonly checkUrl?: (url: URL) => Result<true>;
  /** Name resolution for the socket; lets a caller check every address connected to. */
  readonly lookup?: LookupFunction;
}

export const DEFAULT_MAX_BYTES = 10_000_000;

export function httpTransport(options: TransportOptions = {}): Transport {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return (exchange, signal) => {
    let url: URL;
    try {
      url = new URL(exchange.url);
    } catch {
      return Promise.resolve(err("registry", `${JSON.stringify(exchange.url.slice(0, 200))} is not a URL`));
    }
    const shown = `${url.protocol}//${url.host}${url.pathname}`;
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return Promise.resolve(err("registry", `${shown}: only http and https are used`));
    const checked = options.checkUrl?.(url);
    if (checked !== undefined && !checked.ok) return Promise.resolve(checked);
    return new Promise((done) => {
      let settled = false;
      const finish = (r: Result<HttpAnswer>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        req.destroy();
        done(r);
      };
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      const req = send(
        url,
        {
          method: exchange.method,
          headers: { "user-agent": "bylaw", ...exchange.headers },
          agent: false,
          ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
          ...(url.protocol === "https:"
            ? { minVersion: "TLSv1.2" as const, ...(options.ca !== undefined ? { ca: options.ca } : {}) }
            : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > maxBytes) finish(err("registry", `${shown}: the answer is larger than ${maxBytes} bytes`));
            else chunks.push(c);
          });
          res.on("end", () => {
            const headers: Record<string, string | undefined> = {};
            for (const [k, v] of Object.entries(res.headers))
              headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
            finish(ok({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) }));
          });
          res.on("error", (e) => finish(err("registry", `${shown}: the answer broke off: ${e.message}`)));
        },
      );
      const timer = setTimeout(() => finish(err("registry", `${shown}: no answer within ${timeoutMs} ms`)), timeoutMs);
      const onAbort = (): void => finish(err("registry", `${shown}: the call was abandoned at the deadline`));
      signal?.addEventListener("abort", onAbort);
      req.on("error", (e) =>
        finish(err(e.name === "EgressRefused" ? "refused" : "registry", `${shown}: ${e.message}`)),
      );
      req.end();
    });
  };
}

/**
 * One HTTP exchange for the registry client: a GET or HEAD, no redirect followed (the client
 * follows them itself, each hop through this transport again), a time limit and a body cap. A
 * caller that must confine where requests go (serve's egress filter) passes `checkUrl`, called
 * before connecting, and `lookup`, the socket's name resolution, which checks every address.
 */
import type { LookupFunction } from "node:net";
import { err, ok, type Result } from "../../engine/index.js";
import { readCappedBytes, sendOutbound, TOO_LARGE } from "../http/index.js";

export interface HttpAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
}

interface HttpExchange {
  readonly method: "GET" | "HEAD";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type Transport = (exchange: HttpExchange, signal?: AbortSignal) => Promise<Result<HttpAnswer>>;

interface TransportOptions {
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

const DEFAULT_MAX_BYTES = 10_000_000;

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
    return sendOutbound(
      {
        url,
        method: exchange.method,
        headers: { "user-agent": "bylaw", ...exchange.headers },
        timeoutMs,
        signal,
        ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
      },
      {
        answer: async (res) => {
          const body = await readCappedBytes(res, maxBytes);
          if (body === TOO_LARGE) return err("registry", `${shown}: the answer is larger than ${maxBytes} bytes`);
          if (!Buffer.isBuffer(body)) return err("registry", `${shown}: the answer broke off: ${body.message}`);
          const headers: Record<string, string | undefined> = {};
          for (const [k, v] of Object.entries(res.headers))
            headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
          return ok({ status: res.statusCode ?? 0, headers, body });
        },
        timedOut: () => err("registry", `${shown}: no answer within ${timeoutMs} ms`),
        abandoned: () => err("registry", `${shown}: the call was abandoned at the deadline`),
        failed: (e) => err(e.name === "EgressRefused" ? "refused" : "registry", `${shown}: ${e.message}`),
      },
    );
  };
}

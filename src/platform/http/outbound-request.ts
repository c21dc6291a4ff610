/**
 * One outbound HTTP(S) exchange, as every client Bylaw points outside the cluster's API server
 * makes it (the registry client, the egress client for policy-controlled calls): a fresh
 * connection each time (`agent: false`), TLS 1.2 or later, an optional CA bundle and socket name
 * resolution, a time limit and an abort signal. It settles once, and the request is destroyed when
 * it does. What an answer, a timeout, an abort or a failure mean is the caller's: `outcomes`.
 */
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";

interface OutboundRequest {
  /** An http: or https: URL, already checked by the caller. */
  readonly url: URL;
  readonly method: string;
  /** Sent as given: nothing is added. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** PEM roots to trust instead of the system's. */
  readonly ca?: string;
  /** Name resolution for the socket; lets a caller check every address connected to. */
  readonly lookup?: LookupFunction;
  /** Connect to last byte. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

interface OutboundOutcomes<R> {
  /** Reads the answer; what it resolves to settles the exchange. */
  readonly answer: (res: IncomingMessage) => Promise<R>;
  readonly timedOut: () => R;
  /** The signal aborted. */
  readonly abandoned: () => R;
  /** The request failed (connection, TLS, or an error from `lookup`). */
  readonly failed: (e: Error) => R;
}

export function sendOutbound<R>(request: OutboundRequest, outcomes: OutboundOutcomes<R>): Promise<R> {
  const { url, signal } = request;
  return new Promise((done) => {
    let settled = false;
    const finish = (r: R): void => {
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
        method: request.method,
        headers: request.headers,
        agent: false,
        ...(request.lookup !== undefined ? { lookup: request.lookup } : {}),
        ...(url.protocol === "https:"
          ? { minVersion: "TLSv1.2" as const, ...(request.ca !== undefined ? { ca: request.ca } : {}) }
          : {}),
      },
      (res) => void outcomes.answer(res).then(finish),
    );
    const timer = setTimeout(() => finish(outcomes.timedOut()), request.timeoutMs);
    const onAbort = (): void => finish(outcomes.abandoned());
    signal?.addEventListener("abort", onAbort);
    req.on("error", (e) => finish(outcomes.failed(e)));
    req.end(request.body);
  });
}

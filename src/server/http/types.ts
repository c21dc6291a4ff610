/** The shapes of the webhook's HTTP layer. Handlers are structural: src/server/admission's fit as they are. */
import type { TlsPolicy } from "../tls/tls-policy.js";
import type { JsonLimits } from "./json-limits.js";

/** What an admission route handler answers: a JSON body, or a 400 with the reason. */
export type HandlerResult = { status: 200; body: unknown } | { status: 400; body: { error: string } };

/** A route handler gets the parsed JSON body. It may answer synchronously (the fast path) or with a promise. */
export type RouteHandler = (body: unknown) => HandlerResult | PromiseLike<HandlerResult>;

/**
 * Several parsed bodies of one route at once, answered in order, each exactly as the route's
 * handler would answer it alone (e.g. the validate webhook evaluating policy by policy over them).
 * An answer may be a promise (a review that finishes off the batch); the others are written at once.
 */
export type BatchRouteHandler = (bodies: readonly unknown[]) => (HandlerResult | PromiseLike<HandlerResult>)[];

interface Health {
  live(): boolean;
  ready(): { ok: boolean; reason?: string };
}

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

export interface WebhookServerOptions {
  readonly tls: TlsMaterial;
  readonly host: string;
  readonly port: number;
  /** POST routes by exact path (the query string, e.g. the API server's `?timeout=10s`, is ignored). */
  readonly routes: ReadonlyMap<string, RouteHandler>;
  /**
   * Routes (also in `routes`) whose bodies are handed over together: the bodies that arrive in one
   * turn of the event loop, up to `batchSize` per call.
   */
  readonly batchRoutes?: ReadonlyMap<string, BatchRouteHandler>;
  readonly health: Health;
  /**
   * Largest request body accepted (default 7 MiB). An AdmissionReview carries `object` and
   * `oldObject`, each up to the API server's 3 MiB request limit, so a smaller cap would refuse
   * UPDATEs of large objects (controller-runtime picked 7 MiB for the same reason).
   */
  readonly maxBodyBytes?: number;
  /**
   * Nesting depth, entries per array or object and values in all that a body may hold, checked on
   * its text before it is parsed (default DEFAULT_JSON_LIMITS, json-limits.ts); past one, 413.
   */
  readonly jsonLimits?: JsonLimits;
  /** Time allowed to receive a whole request, headers and body (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Time allowed to receive the request headers (default min(10 s, requestTimeoutMs)). */
  readonly headersTimeoutMs?: number;
  /** Idle keep-alive connections are closed after this (default 120 s, above Go's 90 s client idle timeout). */
  readonly keepAliveTimeoutMs?: number;
  /** Time allowed for a TLS handshake (default 10 s). */
  readonly handshakeTimeoutMs?: number;
  /**
   * Called once per answered request. `route` is the matched route or health path, or `unmatched`
   * for any other path, so that it is safe as a metric label.
   */
  readonly onRequest?: (method: string, route: string, status: number, seconds: number) => void;
  /** A handler threw or its result could not be serialised; the request got a 500. */
  readonly onError?: (error: unknown, context: { method: string; route: string }) => void;
  /**
   * Reviews evaluated together before their answers are written, when several arrive in one turn
   * of the event loop (default 16; see turn-batch.ts).
   */
  readonly batchSize?: number;
  /** Monotonic clock in seconds (default performance.now()/1000). */
  readonly clock?: () => number;
  /** TLS versions and cipher suites (default TLS 1.2+, forward-secret AEAD suites only). */
  readonly tlsPolicy?: TlsPolicy;
  /** PEM CA bundle: when set, clients must present a certificate it signed (mutual TLS). */
  readonly clientCa?: string;
  /**
   * Connections held at once (default 1000); past it, a new connection replaces the one idle
   * longest, or is closed on arrival when every held connection has a request in flight.
   */
  readonly maxConnections?: number;
  /**
   * Request body bytes held at once, from the first byte read until the answer is written (default
   * 4 × maxBodyBytes, at least 4 MiB; each request also counts 16 KiB for what it costs beside its body).
   * A review past it is answered 503 without reading its body; see in-flight-budget.ts.
   */
  readonly maxInFlightBytes?: number;
  /**
   * Asked once per review before its body is read: a reason to shed it (e.g. the heap is near its
   * limit), answered 503, or undefined to serve it. Health paths are never shed.
   */
  readonly overloaded?: () => string | undefined;
}

export interface WebhookServer {
  listen(): Promise<{ port: number }>;
  /** Serve a new certificate to new connections; existing connections keep theirs. */
  setTls(tls: TlsMaterial): void;
  /**
   * Stop accepting, close idle connections at once, let in-flight requests finish for up to
   * graceMs (their responses carry `Connection: close`), then destroy what is left.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

export interface MetricsServerOptions {
  readonly host: string;
  /** Default 8000, Kyverno's --metricsPort. */
  readonly port?: number;
  readonly render: () => Promise<{ contentType: string; body: string }>;
  readonly onError?: (error: unknown) => void;
  /** Serve HTTPS with this certificate (the webhook's); plain HTTP without. */
  readonly tls?: TlsMaterial;
  /** Asked with each request's Authorization header before /metrics is rendered; without it, every request is served. */
  readonly authorize?: (
    authorization: string | undefined,
  ) => Promise<{ ok: true } | { ok: false; status: 401 | 403 | 503; message: string }>;
}

export interface MetricsServer {
  listen(): Promise<{ port: number }>;
  /** With `tls`: serve a new certificate to new connections. */
  setTls(tls: TlsMaterial): void;
  close(): Promise<void>;
}

/**
 * The admission webhook's HTTPS server: POST routes that take and give JSON, Kyverno's health
 * paths, a body cap, slow-client guards, certificate hot swap and a graceful close. It knows
 * nothing of AdmissionReview; the routes' handlers do.
 */
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SecureContextOptions } from "node:tls";
import { performance } from "node:perf_hooks";
import { DEFAULT_TLS_POLICY } from "../tls/tls-policy.js";
import { trackConnections, type ConnectionTracker } from "./connection-tracker.js";
import { InFlightBudget } from "./in-flight-budget.js";
import { DEFAULT_JSON_LIMITS, scanJson } from "./json-limits.js";
import { parseJson } from "./json-syntax-error.js";
import { discardRest, readBody, type BodyRead } from "./request-body.js";
import { errorPayload, sendJson } from "./respond.js";
import { createTurnBatch, DEFAULT_MAX_PER_CHUNK, type TurnBatch } from "./turn-batch.js";
import type { Exchange, Ticket, Waiting } from "./exchange.js";
import type {
  BatchRouteHandler,
  HandlerResult,
  RouteHandler,
  TlsMaterial,
  WebhookServer,
  WebhookServerOptions,
} from "./types.js";

const DEFAULT_MAX_BODY_BYTES = 7 * 1024 * 1024;
/** Connections held at once; past it, a new one replaces the one idle longest, or is closed when all are busy. */
export const DEFAULT_MAX_CONNECTIONS = 1000;
/**
 * Requests one connection may have unanswered at once. The API server (Go) never pipelines; a
 * client that pipelines past this without reading its answers has its connection closed.
 */
const MAX_PIPELINED = 16;
/** What a review costs beside its body (request, response, parsed review, answer), charged to the in-flight budget. */
const REQUEST_OVERHEAD_BYTES = 16 * 1024;
const LIVENESS_PATH = "/health/liveness";
const READINESS_PATH = "/health/readiness";
const UNMATCHED = "unmatched";
const MIB = 1024 * 1024;

export function createWebhookServer(options: WebhookServerOptions): WebhookServer {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout);
  const secure = secureContextOf(options);
  const server = createServer({
    ...secure(options.tls),
    honorCipherOrder: true,
    // With a client CA, a client must present a certificate it signed (the API server's, see
    // deploy/README.md); without one the handshake fails.
    ...(options.clientCa !== undefined ? { requestCert: true, rejectUnauthorized: true } : {}),
    handshakeTimeout: options.handshakeTimeoutMs ?? 10_000,
    requestTimeout,
    headersTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 120_000,
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(headersTimeout / 2))),
  });
  const connections = trackConnections(server, "secureConnection", options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  const exchanges = new Exchanges(options, maxBodyBytes, connections);
  server.on("error", (e) => exchanges.report(e, "server", "-"));
  server.on("request", (req: IncomingMessage, res: ServerResponse) => exchanges.request(req, res));
  let closed: Promise<void> | undefined;
  return {
    listen: () => listen(server, options),
    setTls(tls: TlsMaterial) {
      server.setSecureContext(secure(tls));
    },
    close(closeOptions = {}) {
      if (closed !== undefined) return closed;
      exchanges.closing = true;
      closed = closeServer(server, connections, closeOptions.graceMs ?? 10_000);
      return closed;
    },
  };
}

/** The TLS part of the server's options, for the server and for each certificate swap. */
function secureContextOf(options: WebhookServerOptions): (tls: TlsMaterial) => SecureContextOptions {
  const tlsPolicy = options.tlsPolicy ?? DEFAULT_TLS_POLICY;
  return (tls) => ({
    cert: tls.cert,
    key: tls.key,
    minVersion: tlsPolicy.minVersion,
    ciphers: tlsPolicy.ciphers,
    ...(options.clientCa !== undefined ? { ca: options.clientCa } : {}),
  });
}

function listen(server: Server, options: WebhookServerOptions): Promise<{ port: number }> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once("error", onError);
    server.listen(options.port, options.host, () => {
      server.removeListener("error", onError);
      resolve({ port: (server.address() as AddressInfo).port });
    });
  });
}

/** Stops accepting, lets open requests finish, and destroys what is left after `graceMs`. */
function closeServer(server: Server, connections: ConnectionTracker, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) {
      connections.destroyAll();
      resolve();
      return;
    }
    const force = setTimeout(() => connections.destroyAll(), graceMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    connections.closeIdle();
  });
}

/** The request side of the server: routing, the body cap and budget, batching, answers and errors. */
class Exchanges {
  /** Set by close(): answers carry `connection: close`, and readiness says shutting down. */
  closing = false;
  private readonly clock: () => number;
  private readonly discardLimits: { maxBytes: number; lingerMs: number };
  private readonly budget: InFlightBudget;
  private readonly batchSize: number;
  private readonly batch: TurnBatch;
  /** Bodies waiting for their path's batch handler, by path; a path has one batch run scheduled while it has some. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(
    private readonly options: WebhookServerOptions,
    private readonly maxBodyBytes: number,
    private readonly connections: ConnectionTracker,
  ) {
    this.clock = options.clock ?? (() => performance.now() / 1000);
    this.discardLimits = { maxBytes: 4 * Math.max(maxBodyBytes, MIB), lingerMs: 2_000 };
    this.budget = new InFlightBudget(
      options.maxInFlightBytes ?? Math.max(4 * maxBodyBytes, 256 * REQUEST_OVERHEAD_BYTES),
    );
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULT_MAX_PER_CHUNK);
    this.batch = createTurnBatch({ maxPerChunk: this.batchSize, onError: (e) => this.report(e, "POST", "batch") });
  }

  request(req: IncomingMessage, res: ServerResponse): void {
    const started = this.clock();
    const socket = req.socket;
    if (this.connections.requestStarted(socket) > MAX_PIPELINED) {
      socket.destroy();
      return;
    }
    // The body bytes this request holds in the in-flight budget, given back when its exchange ends.
    const ticket: Ticket = { held: 0 };
    res.once("close", () => {
      this.connections.requestEnded(socket);
      if (ticket.held > 0) this.budget.give(ticket.held);
    });
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (path === LIVENESS_PATH || path === READINESS_PATH) return this.health({ req, res, route: path, started });
    const handler = this.options.routes.get(path);
    if (handler === undefined)
      return this.reject({ req, res, route: UNMATCHED, started }, 404, `no webhook is served at ${path.slice(0, 200)}`);
    const ex: Exchange = { req, res, route: path, started, ticket };
    try {
      this.route(ex, handler, ticket);
    } catch (e) {
      this.failed(ex, e);
    }
  }

  report(error: unknown, method: string, route: string): void {
    try {
      this.options.onError?.(error, { method, route });
    } catch {
      // The error sink itself failed; nothing better to do than carry on serving.
    }
  }

  /** Sends now, or after the evaluation of the batch running now (see turn-batch.ts). */
  private answer(ex: Exchange, status: number, payload: string, headers: Record<string, string> = {}): void {
    this.batch.send(() => {
      const { req, res, route } = ex;
      if (res.headersSent || res.destroyed) return;
      sendJson(res, status, payload, this.closing ? { ...headers, connection: "close" } : headers);
      const method = req.method ?? "UNKNOWN";
      try {
        this.options.onRequest?.(method, route, status, this.clock() - ex.started);
      } catch (e) {
        this.report(e, method, route);
      }
    });
  }

  /** Answer without reading the body, then throw the body away within bounds. */
  private reject(ex: Exchange, status: number, message: string, headers: Record<string, string> = {}): void {
    this.answer(ex, status, errorPayload(message), headers);
    discardRest(ex.req, this.discardLimits);
  }

  private health(ex: Exchange): void {
    const { req, route: path } = ex;
    if (req.method !== "GET" && req.method !== "HEAD") {
      this.reject(ex, 405, `${path} accepts GET only`, { allow: "GET, HEAD" });
      return;
    }
    try {
      if (path === LIVENESS_PATH) {
        const live = this.options.health.live();
        this.answer(ex, live ? 200 : 503, JSON.stringify({ live }));
        return;
      }
      const ready = this.closing ? { ok: false, reason: "shutting down" } : this.options.health.ready();
      const body = ready.ok ? { ready: true } : { ready: false, reason: ready.reason ?? "not ready" };
      this.answer(ex, ready.ok ? 200 : 503, JSON.stringify(body));
    } catch (e) {
      this.report(e, req.method, path);
      this.answer(ex, 503, JSON.stringify({ error: `health check failed: ${messageOf(e)}` }));
    }
  }

  private route(ex: Exchange, handler: RouteHandler, ticket: Ticket): void {
    const { req, route: path } = ex;
    const method = req.method ?? "UNKNOWN";
    if (method !== "POST") return this.reject(ex, 405, `${path} accepts POST only`, { allow: "POST" });
    const refused = this.refusal(req);
    if (refused !== undefined) return this.reject(ex, refused.status, refused.message, refused.headers);
    const lengthHeader = req.headers["content-length"];
    const declared = lengthHeader === undefined ? undefined : Number(lengthHeader);
    const upfront = REQUEST_OVERHEAD_BYTES + (declared !== undefined && declared <= this.maxBodyBytes ? declared : 0);
    if (!this.budget.take(upfront)) return this.overBudget(ex);
    ticket.held = upfront;
    const takeChunk =
      declared === undefined
        ? (bytes: number): boolean => {
            if (!this.budget.take(bytes)) return false;
            ticket.held += bytes;
            return true;
          }
        : undefined;
    readBody(req, this.maxBodyBytes, (body) => this.received(ex, handler, body), takeChunk);
  }

  /** Why a POST is refused before its body is read (media type, encoding, load shedding), if it is. */
  private refusal(
    req: IncomingMessage,
  ): { status: number; message: string; headers?: Record<string, string> } | undefined {
    const mediaType = req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
    if (mediaType !== undefined && mediaType !== "application/json") {
      return { status: 415, message: `the request body must be application/json, not ${mediaType.slice(0, 100)}` };
    }
    const encoding = req.headers["content-encoding"]?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== "" && encoding !== "identity") {
      return {
        status: 415,
        message: `content-encoding ${encoding.slice(0, 100)} is not supported; send the body uncompressed`,
      };
    }
    const shed = this.options.overloaded?.();
    if (shed !== undefined)
      return {
        status: 503,
        message: `the webhook is shedding load (${shed}); retry later`,
        headers: { "retry-after": "1" },
      };
    return undefined;
  }

  /** Complete bodies are handled in the next batch; refusals are answered at once. */
  private received(ex: Exchange, handler: RouteHandler, body: BodyRead): void {
    const path = ex.route;
    if (body.kind !== "ok") return this.handleSafely(ex, handler, body);
    const many = this.options.batchRoutes?.get(path);
    if (many === undefined) return this.batch.add(() => this.handleSafely(ex, handler, body));
    let list = this.waiting.get(path);
    if (list === undefined) {
      list = [];
      this.waiting.set(path, list);
      this.batch.add(() => this.runBatch(path, many));
    }
    list.push({ ex, text: body.text });
  }

  private overBudget(ex: Exchange): void {
    this.reject(
      ex,
      503,
      `the webhook holds its limit of ${this.budget.maxBytes} bytes of requests in flight; retry later`,
      { "retry-after": "1" },
    );
  }

  /** Up to batchSize waiting bodies of `path` in one call of its batch handler; the rest in the next run. */
  private runBatch(path: string, handler: BatchRouteHandler): void {
    const list = this.waiting.get(path) ?? [];
    const taken = list.splice(0, this.batchSize);
    if (list.length === 0) this.waiting.delete(path);
    else this.batch.add(() => this.runBatch(path, handler));
    const bodies: unknown[] = [];
    const owners: Waiting[] = [];
    for (const w of taken) {
      const parsed = this.parse(w.ex, w.text);
      if (parsed.ok) {
        bodies.push(parsed.value);
        owners.push(w);
      } else {
        this.answer(w.ex, parsed.status, errorPayload(parsed.message), retryAfter(parsed.status));
      }
    }
    if (owners.length === 0) return;
    let results: ReturnType<BatchRouteHandler>;
    try {
      results = handler(bodies);
    } catch (e) {
      for (const w of owners) this.failed(w.ex, e);
      return;
    }
    owners.forEach((w, i) => {
      const result = results[i];
      if (result === undefined)
        this.failed(w.ex, new TypeError(`the batch handler for ${path} gave no answer for body ${i}`));
      else if (isPromiseLike(result)) {
        result.then(
          (r) => this.respond(w.ex, r),
          (e: unknown) => this.failed(w.ex, e),
        );
      } else this.respond(w.ex, result);
    });
  }

  /**
   * The body's value; or 413 when it would cost more than the JSON limits once parsed (checked
   * first, on the text), 503 when what its parsed value takes does not fit the in-flight budget
   * beside the other requests, 400 when it is not JSON.
   */
  private parse(
    ex: Exchange,
    text: string,
  ): { ok: true; value: unknown } | { ok: false; status: number; message: string } {
    const scan = scanJson(text, this.options.jsonLimits ?? DEFAULT_JSON_LIMITS);
    if (scan.over !== undefined) return { ok: false, status: 413, message: `${scan.over}; it was not parsed` };
    const ticket = ex.ticket;
    if (ticket !== undefined) {
      if (!this.budget.takeMore(scan.parsedBytes, ticket.held))
        return {
          ok: false,
          status: 503,
          message: `the webhook holds its limit of ${this.budget.maxBytes} bytes of requests in flight (this body would take about ${scan.parsedBytes} more once parsed); retry later`,
        };
      ticket.held += scan.parsedBytes;
    }
    const parsed = parseJson(text);
    return parsed.ok
      ? parsed
      : { ok: false, status: 400, message: `the request body is not valid JSON: ${parsed.message}` };
  }

  private handleSafely(ex: Exchange, handler: RouteHandler, body: BodyRead): void {
    try {
      this.withBody(ex, handler, body);
    } catch (e) {
      this.failed(ex, e);
    }
  }

  private withBody(ex: Exchange, handler: RouteHandler, body: BodyRead): void {
    if (body.kind === "aborted") return;
    if (body.kind === "over-budget") return this.overBudget(ex);
    if (body.kind === "too-large") {
      const size = body.declared === undefined ? "more than" : `${body.declared} bytes, over`;
      return this.reject(ex, 413, `the request body is ${size} the limit of ${this.maxBodyBytes} bytes`);
    }
    const parsed = this.parse(ex, body.text);
    if (!parsed.ok) return this.answer(ex, parsed.status, errorPayload(parsed.message), retryAfter(parsed.status));
    let returned: ReturnType<RouteHandler>;
    try {
      returned = handler(parsed.value);
    } catch (e) {
      return this.failed(ex, e);
    }
    // Handlers answer synchronously today; a promise is awaited without making every request async.
    if (isPromiseLike(returned)) {
      returned.then(
        (result) => this.respond(ex, result),
        (e: unknown) => this.failed(ex, e),
      );
      return;
    }
    this.respond(ex, returned);
  }

  private respond(ex: Exchange, result: HandlerResult): void {
    let payload: string | undefined;
    try {
      payload = result.status === 200 || result.status === 400 ? JSON.stringify(result.body) : undefined;
      if (payload === undefined)
        throw new TypeError(
          `the handler for ${ex.route} returned an unusable result (status ${String(result.status)})`,
        );
    } catch (e) {
      return this.failed(ex, e);
    }
    this.answer(ex, result.status, payload);
  }

  private failed(ex: Exchange, e: unknown): void {
    this.report(e, ex.req.method ?? "UNKNOWN", ex.route);
    this.answer(ex, 500, errorPayload(`internal error: ${messageOf(e)}`));
  }
}

/** A 503 says when to come back. */
function retryAfter(status: number): Record<string, string> {
  return status === 503 ? { "retry-after": "1" } : {};
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The admission webhook's HTTPS server: POST routes that take and give JSON, Kyverno's health
 * paths, a body cap, slow-client guards, certificate hot swap and a graceful close. It knows
 * nothing of AdmissionReview; the routes' handlers do.
 */
import { createServer } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { DEFAULT_TLS_POLICY } from "../tls/tls-policy.js";
import { trackConnections } from "./connection-tracker.js";
import { InFlightBudget } from "./in-flight-budget.js";
import { parseJson } from "./json-syntax-error.js";
import { discardRest, readBody, type BodyRead } from "./request-body.js";
import { errorPayload, sendJson } from "./respond.js";
import { createTurnBatch, DEFAULT_MAX_PER_CHUNK } from "./turn-batch.js";
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
  const clock = options.clock ?? (() => performance.now() / 1000);
  const discardLimits = { maxBytes: 4 * Math.max(maxBodyBytes, MIB), lingerMs: 2_000 };
  const budget = new InFlightBudget(
    options.maxInFlightBytes ?? Math.max(4 * maxBodyBytes, 256 * REQUEST_OVERHEAD_BYTES),
  );
  const tlsPolicy = options.tlsPolicy ?? DEFAULT_TLS_POLICY;
  const secure = (tls: TlsMaterial) => ({
    cert: tls.cert,
    key: tls.key,
    minVersion: tlsPolicy.minVersion,
    ciphers: tlsPolicy.ciphers,
    ...(options.clientCa !== undefined ? { ca: options.clientCa } : {}),
  });
  let closing = false;
  let closed: Promise<void> | undefined;

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
  server.on("error", (e) => report(e, "server", "-"));
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_MAX_PER_CHUNK);
  const batch = createTurnBatch({ maxPerChunk: batchSize, onError: (e) => report(e, "POST", "batch") });
  /** Bodies waiting for their path's batch handler, by path; a path has one batch run scheduled while it has some. */
  const waiting = new Map<string, Waiting[]>();

  function report(error: unknown, method: string, route: string): void {
    try {
      options.onError?.(error, { method, route });
    } catch {
      // The error sink itself failed; nothing better to do than carry on serving.
    }
  }

  /** Sends now, or after the evaluation of the batch running now (see turn-batch.ts). */
  function answer(ex: Exchange, status: number, payload: string, headers: Record<string, string> = {}): void {
    batch.send(() => {
      const { req, res, route } = ex;
      if (res.headersSent || res.destroyed) return;
      sendJson(res, status, payload, closing ? { ...headers, connection: "close" } : headers);
      const method = req.method ?? "UNKNOWN";
      try {
        options.onRequest?.(method, route, status, clock() - ex.started);
      } catch (e) {
        report(e, method, route);
      }
    });
  }

  /** Answer without reading the body, then throw the body away within bounds. */
  function reject(ex: Exchange, status: number, message: string, headers: Record<string, string> = {}): void {
    answer(ex, status, errorPayload(message), headers);
    discardRest(ex.req, discardLimits);
  }

  function health(ex: Exchange): void {
    const { req, route: path } = ex;
    if (req.method !== "GET" && req.method !== "HEAD") {
      reject(ex, 405, `${path} accepts GET only`, { allow: "GET, HEAD" });
      return;
    }
    try {
      if (path === LIVENESS_PATH) {
        const live = options.health.live();
        answer(ex, live ? 200 : 503, JSON.stringify({ live }));
        return;
      }
      const ready = closing ? { ok: false, reason: "shutting down" } : options.health.ready();
      const body = ready.ok ? { ready: true } : { ready: false, reason: ready.reason ?? "not ready" };
      answer(ex, ready.ok ? 200 : 503, JSON.stringify(body));
    } catch (e) {
      report(e, req.method, path);
      answer(ex, 503, JSON.stringify({ error: `health check failed: ${messageOf(e)}` }));
    }
  }

  function route(ex: Exchange, handler: RouteHandler, ticket: Ticket): void {
    const { req, route: path } = ex;
    const method = req.method ?? "UNKNOWN";
    if (method !== "POST") return reject(ex, 405, `${path} accepts POST only`, { allow: "POST" });
    const mediaType = req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
    if (mediaType !== undefined && mediaType !== "application/json") {
      return reject(ex, 415, `the request body must be application/json, not ${mediaType.slice(0, 100)}`);
    }
    const encoding = req.headers["content-encoding"]?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== "" && encoding !== "identity") {
      return reject(ex, 415, `content-encoding ${encoding.slice(0, 100)} is not supported; send the body uncompressed`);
    }
    const shed = options.overloaded?.();
    if (shed !== undefined)
      return reject(ex, 503, `the webhook is shedding load (${shed}); retry later`, { "retry-after": "1" });
    const lengthHeader = req.headers["content-length"];
    const declared = lengthHeader === undefined ? undefined : Number(lengthHeader);
    const upfront = REQUEST_OVERHEAD_BYTES + (declared !== undefined && declared <= maxBodyBytes ? declared : 0);
    if (!budget.take(upfront)) return overBudget(ex);
    ticket.held = upfront;
    const takeChunk =
      declared === undefined
        ? (bytes: number): boolean => {
            if (!budget.take(bytes)) return false;
            ticket.held += bytes;
            return true;
          }
        : undefined;
    readBody(
      req,
      maxBodyBytes,
      (body) => {
        // Complete bodies are handled in the next batch; refusals are answered at once.
        if (body.kind !== "ok") return handleSafely(ex, handler, body);
        const many = options.batchRoutes?.get(path);
        if (many === undefined) return batch.add(() => handleSafely(ex, handler, body));
        let list = waiting.get(path);
        if (list === undefined) {
          list = [];
          waiting.set(path, list);
          batch.add(() => runBatch(path, many));
        }
        list.push({ ex, text: body.text });
      },
      takeChunk,
    );
  }

  function overBudget(ex: Exchange): void {
    reject(ex, 503, `the webhook holds its limit of ${budget.maxBytes} bytes of requests in flight; retry later`, {
      "retry-after": "1",
    });
  }

  /** Up to batchSize waiting bodies of `path` in one call of its batch handler; the rest in the next run. */
  function runBatch(path: string, handler: BatchRouteHandler): void {
    const list = waiting.get(path) ?? [];
    const taken = list.splice(0, batchSize);
    if (list.length === 0) waiting.delete(path);
    else batch.add(() => runBatch(path, handler));
    const bodies: unknown[] = [];
    const owners: Waiting[] = [];
    for (const w of taken) {
      const parsed = parseJson(w.text);
      if (parsed.ok) {
        bodies.push(parsed.value);
        owners.push(w);
      } else {
        answer(w.ex, 400, errorPayload(`the request body is not valid JSON: ${parsed.message}`));
      }
    }
    if (owners.length === 0) return;
    let results: ReturnType<BatchRouteHandler>;
    try {
      results = handler(bodies);
    } catch (e) {
      for (const w of owners) failed(w.ex, e);
      return;
    }
    owners.forEach((w, i) => {
      const result = results[i];
      if (result === undefined)
        failed(w.ex, new TypeError(`the batch handler for ${path} gave no answer for body ${i}`));
      else if (isPromiseLike(result)) {
        result.then(
          (r) => respond(w.ex, r),
          (e: unknown) => failed(w.ex, e),
        );
      } else respond(w.ex, result);
    });
  }

  function handleSafely(ex: Exchange, handler: RouteHandler, body: BodyRead): void {
    try {
      withBody(ex, handler, body);
    } catch (e) {
      failed(ex, e);
    }
  }

  function withBody(ex: Exchange, handler: RouteHandler, body: BodyRead): void {
    if (body.kind === "aborted") return;
    if (body.kind === "over-budget") return overBudget(ex);
    if (body.kind === "too-large") {
      const size = body.declared === undefined ? "more than" : `${body.declared} bytes, over`;
      return reject(ex, 413, `the request body is ${size} the limit of ${maxBodyBytes} bytes`);
    }
    const parsed = parseJson(body.text);
    if (!parsed.ok) return answer(ex, 400, errorPayload(`the request body is not valid JSON: ${parsed.message}`));
    let returned: ReturnType<RouteHandler>;
    try {
      returned = handler(parsed.value);
    } catch (e) {
      return failed(ex, e);
    }
    // Handlers answer synchronously today; a promise is awaited without making every request async.
    if (isPromiseLike(returned)) {
      returned.then(
        (result) => respond(ex, result),
        (e: unknown) => failed(ex, e),
      );
      return;
    }
    respond(ex, returned);
  }

  function respond(ex: Exchange, result: HandlerResult): void {
    let payload: string | undefined;
    try {
      payload = result.status === 200 || result.status === 400 ? JSON.stringify(result.body) : undefined;
      if (payload === undefined)
        throw new TypeError(
          `the handler for ${ex.route} returned an unusable result (status ${String(result.status)})`,
        );
    } catch (e) {
      return failed(ex, e);
    }
    answer(ex, result.status, payload);
  }

  function failed(ex: Exchange, e: unknown): void {
    report(e, ex.req.method ?? "UNKNOWN", ex.route);
    answer(ex, 500, errorPayload(`internal error: ${messageOf(e)}`));
  }

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const started = clock();
    const socket = req.socket;
    if (connections.requestStarted(socket) > MAX_PIPELINED) {
      socket.destroy();
      return;
    }
    // The body bytes this request holds in the in-flight budget, given back when its exchange ends.
    const ticket: Ticket = { held: 0 };
    res.once("close", () => {
      connections.requestEnded(socket);
      if (ticket.held > 0) budget.give(ticket.held);
    });
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (path === LIVENESS_PATH || path === READINESS_PATH) return health({ req, res, route: path, started });
    const handler = options.routes.get(path);
    if (handler === undefined)
      return reject({ req, res, route: UNMATCHED, started }, 404, `no webhook is served at ${path.slice(0, 200)}`);
    const ex: Exchange = { req, res, route: path, started };
    try {
      route(ex, handler, ticket);
    } catch (e) {
      failed(ex, e);
    }
  });

  return {
    listen() {
      return new Promise((resolve, reject) => {
        const onError = (e: Error): void => reject(e);
        server.once("error", onError);
        server.listen(options.port, options.host, () => {
          server.removeListener("error", onError);
          resolve({ port: (server.address() as AddressInfo).port });
        });
      });
    },
    setTls(tls: TlsMaterial) {
      server.setSecureContext(secure(tls));
    },
    close(closeOptions = {}) {
      if (closed !== undefined) return closed;
      closing = true;
      const graceMs = closeOptions.graceMs ?? 10_000;
      closed = new Promise<void>((resolve) => {
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
      return closed;
    },
  };
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * `GET /metrics` for Prometheus, on its own port (8000 by default, as Kyverno): plain HTTP, or
 * with `tls` HTTPS with the webhook's serving certificate, and with `authorize` only for requests
 * it allows (a bearer token reviewed by the API server, see kube/metrics-access.ts).
 */
import { createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorPayload, sendJson } from "./respond.js";
import type { MetricsServer, MetricsServerOptions } from "./types.js";

const DEFAULT_METRICS_PORT = 8000;
const METRICS_PATH = "/metrics";

export function createMetricsServer(options: MetricsServerOptions): MetricsServer {
  const report = (e: unknown): void => {
    try {
      options.onError?.(e);
    } catch {
      // keep serving
    }
  };
  const timeouts = { requestTimeout: 10_000, headersTimeout: 5_000, keepAliveTimeout: 65_000 };
  const handle = (req: IncomingMessage, res: ServerResponse): void => void guarded(req, res);
  const server =
    options.tls === undefined
      ? createServer(timeouts, handle)
      : createHttpsServer({ ...timeouts, cert: options.tls.cert, key: options.tls.key, minVersion: "TLSv1.2" }, handle);
  server.on("error", report);
  /**
   * Scrapes that arrive while one is rendering share its text: N parallel scrapes cost one render's
   * time and memory, not N.
   */
  let rendering: Promise<{ contentType: string; body: string }> | undefined;
  const renderShared = (): Promise<{ contentType: string; body: string }> => {
    rendering ??= options.render().finally(() => {
      rendering = undefined;
    });
    return rendering;
  };

  /** Refused before anything is rendered when `authorize` says no (401 without a usable token, 403 without the right). */
  async function guarded(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.authorize !== undefined) {
      let access: Awaited<ReturnType<NonNullable<MetricsServerOptions["authorize"]>>>;
      try {
        access = await options.authorize(req.headers.authorization);
      } catch (e) {
        report(e);
        access = { ok: false, status: 503, message: "the request could not be authorized" };
      }
      if (!access.ok) {
        const headers: Record<string, string> = access.status === 401 ? { "www-authenticate": "Bearer" } : {};
        return sendJson(res, access.status, errorPayload(access.message), headers);
      }
    }
    return serve(req, res);
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (path !== METRICS_PATH)
      return sendJson(res, 404, errorPayload(`not found: only ${METRICS_PATH} is served here`));
    if (req.method !== "GET" && req.method !== "HEAD")
      return sendJson(res, 405, errorPayload(`${METRICS_PATH} accepts GET only`), { allow: "GET, HEAD" });
    try {
      const { contentType, body } = await renderShared();
      const bytes = Buffer.from(body, "utf8");
      if (res.destroyed) return;
      res.writeHead(200, { "content-type": contentType, "content-length": String(bytes.length) });
      res.end(bytes);
    } catch (e) {
      report(e);
      if (!res.headersSent && !res.destroyed)
        sendJson(res, 500, errorPayload(`rendering metrics failed: ${e instanceof Error ? e.message : String(e)}`));
    }
  }

  return {
    listen() {
      return new Promise((resolve, reject) => {
        const onError = (e: Error): void => reject(e);
        server.once("error", onError);
        server.listen(options.port ?? DEFAULT_METRICS_PORT, options.host, () => {
          server.removeListener("error", onError);
          resolve({ port: (server.address() as AddressInfo).port });
        });
      });
    },
    setTls(tls) {
      if ("setSecureContext" in server) server.setSecureContext({ cert: tls.cert, key: tls.key });
    },
    close() {
      return new Promise((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

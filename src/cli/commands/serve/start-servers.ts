/** Mount the admission handlers on the HTTPS server, the registry on the metrics server, and start both. */
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { handleMutate, handlePolicyValidate, handleValidate, handleValidateBatch, parseReview } from "../../../server/admission/index.js";
import { createMetricsServer, createWebhookServer, watchMemoryPressure, type BatchRouteHandler, type RouteHandler } from "../../../server/http/index.js";
import type { BylawMetrics } from "../../../server/metrics/index.js";
import type { AdmissionDeps, PolicySource } from "../../../server/types.js";
import type { ResourceBounds } from "./resource-flags.js";
import type { ServingTls } from "./tls-setup.js";

export interface StartOptions {
  readonly deps: AdmissionDeps;
  readonly source: PolicySource;
  readonly tls: ServingTls;
  readonly host: string;
  readonly port: number;
  /** undefined: no metrics server; 0: any free port. */
  readonly metricsPort: number | undefined;
  readonly maxBodyBytes: number;
  readonly metrics: BylawMetrics;
  readonly registry: Registry;
  readonly logger: Logger;
  readonly bounds: ResourceBounds;
}

export interface RunningServers {
  readonly port: number;
  readonly metricsPort: number | undefined;
  close(graceMs: number): Promise<void>;
}

export function admissionRoutes(deps: AdmissionDeps): Map<string, RouteHandler> {
  const routes = new Map<string, RouteHandler>();
  routes.set("/mutate", (b) => handleMutate(b, deps));
  routes.set("/mutate/fail", (b) => handleMutate(b, deps, "fail"));
  routes.set("/mutate/ignore", (b) => handleMutate(b, deps, "ignore"));
  routes.set("/validate", (b) => handleValidate(b, deps));
  routes.set("/validate/fail", (b) => handleValidate(b, deps, "fail"));
  routes.set("/validate/ignore", (b) => handleValidate(b, deps, "ignore"));
  routes.set("/policyvalidate", (b) => handlePolicyValidate(b, deps));
  // Accepted unchanged, as Kyverno does; a body that is not an AdmissionReview gets a 400 like on every other path.
  routes.set("/policymutate", (b) => {
    const parsed = parseReview(b);
    if (!parsed.ok) return { status: 400, body: { error: parsed.error } };
    return { status: 200, body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: parsed.request.uid, allowed: true } } };
  });
  return routes;
}

/** The validate webhooks take the reviews that arrive together as one batch (evaluated policy by policy). */
export function admissionBatchRoutes(deps: AdmissionDeps): Map<string, BatchRouteHandler> {
  const routes = new Map<string, BatchRouteHandler>();
  routes.set("/validate", (bodies) => handleValidateBatch(bodies, deps));
  routes.set("/validate/fail", (bodies) => handleValidateBatch(bodies, deps, "fail"));
  routes.set("/validate/ignore", (bodies) => handleValidateBatch(bodies, deps, "ignore"));
  return routes;
}

/** Ready once a policy set loaded; a rejected reload keeps serving the last good set and says so. */
export function readiness(source: PolicySource): { ok: boolean; reason?: string } {
  const error = source.lastError();
  if (source.current().generation === 0) return { ok: false, reason: `no policy set loaded yet${error ? `: ${error.message}` : ""}` };
  if (error !== undefined) return { ok: true, reason: `serving the last good policy set (generation ${source.current().generation}); the last reload was rejected: ${error.message}` };
  return { ok: true };
}

export async function startServers(o: StartOptions): Promise<RunningServers> {
  const pressure = watchMemoryPressure({
    ...(o.bounds.memoryLimitBytes !== undefined ? { limitBytes: o.bounds.memoryLimitBytes } : {}),
    onChange: (reason) => {
      if (reason === undefined) o.logger.info({}, "bylaw serve: memory is back under its bounds; reviews are served again");
      else o.logger.warn({ reason }, "bylaw serve: memory is near its limit; reviews are answered 503 (the webhooks' failurePolicy applies) until it falls");
    },
  });
  const routes = admissionRoutes(o.deps);
  const webhook = createWebhookServer({
    tls: { cert: o.tls.cert, key: o.tls.key },
    host: o.host,
    port: o.port,
    routes,
    batchRoutes: admissionBatchRoutes(o.deps),
    health: { live: () => true, ready: () => readiness(o.source) },
    maxBodyBytes: o.maxBodyBytes,
    maxConnections: o.bounds.maxConnections,
    maxInFlightBytes: o.bounds.maxInFlightBytes,
    overloaded: () => pressure.reason(),
    tlsPolicy: o.bounds.tlsPolicy,
    ...(o.bounds.clientCa !== undefined ? { clientCa: o.bounds.clientCa } : {}),
    onRequest: (method, route, status, seconds) => {
      o.metrics.httpRequest(method, route, seconds);
      if (status === 503 && routes.has(route)) o.metrics.reviewShed(route);
    },
    onError: (error, context) => o.logger.error({ err: error, ...context }, "bylaw serve: request failed"),
  });
  o.tls.onReload((tls) => {
    webhook.setTls(tls);
    o.logger.info({}, "bylaw serve: TLS certificate reloaded");
  });
  const { port } = await webhook.listen();
  let metricsPort: number | undefined;
  let metricsServer: { close(): Promise<void> } | undefined;
  if (o.metricsPort !== undefined) {
    const server = createMetricsServer({ host: o.host, port: o.metricsPort, render: async () => ({ contentType: o.registry.contentType, body: await o.registry.metrics() }) });
    metricsPort = (await server.listen()).port;
    metricsServer = server;
  }
  return {
    port,
    metricsPort,
    close: async (graceMs) => {
      pressure.stop();
      await Promise.all([webhook.close({ graceMs }), metricsServer?.close()]);
    },
  };
}

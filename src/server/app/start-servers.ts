/** Mount the admission handlers on the HTTPS server, the registry on the metrics server, and start both. */
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import {
  handleMutateBounded,
  handlePolicyValidateVetted,
  handleValidate,
  handleValidateBatch,
  parseReview,
} from "../admission/index.js";
import {
  createMetricsServer,
  createWebhookServer,
  watchMemoryPressure,
  type BatchRouteHandler,
  type MetricsServer,
  type RouteHandler,
} from "../http/index.js";
import type { BylawMetrics } from "../metrics/index.js";
import type { PolicySource } from "../types.js";
import type { AdmissionDeps } from "../admission/deps.js";
import type { MetricsAuth, ResourceBounds, UiSettings } from "./types.js";
import type { UiServer } from "../../ui/ui-server.js";
import type { HandlerResult, WebhookGroup } from "../admission/types.js";
import {
  DEADLINE_SHARE,
  DEFAULT_GROUPS,
  groupPath,
  registeredGroups,
  type TimeoutGroups,
} from "../admission/webhook-groups.js";
import type { ServingTls } from "./tls-setup.js";
import { AdmissionRouteMap } from "./fine-grained-routes.js";
import { withGenerateWork, withGenerateWorkBatch } from "../admission/after-allowed.js";
import { createOfflineEngine } from "../../platform/offline-engine.js";

interface StartOptions {
  readonly deps: AdmissionDeps;
  /** The registered webhook timeouts: each group's paths are served under its own deadline. */
  readonly groups: TimeoutGroups;
  readonly source: PolicySource & { readiness(): { ok: boolean; reason?: string } };
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
  /** With --metrics-auth token: /metrics over HTTPS (the serving certificate), to allowed bearer tokens only. */
  readonly metricsAuth?: MetricsAuth | undefined;
  /** With --ui-port: the report UI over HTTPS with the serving certificate. */
  readonly ui?: UiSettings | undefined;
}

interface RunningServers {
  readonly port: number;
  readonly metricsPort: number | undefined;
  readonly uiPort: number | undefined;
  close(graceMs: number): Promise<void>;
}

/** The deps of one webhook group: its reviews get 80% of the group's timeout. */
function groupDeps(deps: AdmissionDeps, group: WebhookGroup): AdmissionDeps {
  return { ...deps, deadlineSeconds: group.timeoutSeconds * DEADLINE_SHARE };
}

/**
 * The POST routes: `/validate` and `/mutate` serve every policy (under `deps.deadlineSeconds`);
 * each registered group's paths (webhook-groups.ts) serve its policies under its own deadline, and
 * with `groups.fineGrained` each fine-grained path its one policy (fine-grained-routes.ts).
 */
export function admissionRoutes(
  deps: AdmissionDeps,
  groups: TimeoutGroups = DEFAULT_GROUPS,
): Map<string, RouteHandler> {
  // With fine-grained webhooks registered, their paths (one per policy with matchConditions) are served too.
  const routes =
    groups.fineGrained === true
      ? new AdmissionRouteMap(deps, groups, (kind, own, group) =>
          // Bounded as the batch routes are: a review past its inline slice finishes in an evaluation worker.
          kind === "mutate"
            ? (b) => handleMutateBounded(b, own, group)
            : withGenerateWork(
                (b) => handleValidateBatch([b], own, group)[0] as HandlerResult | Promise<HandlerResult>,
                own,
                group,
              ),
        )
      : new Map<string, RouteHandler>();
  routes.set("/mutate", (b) => handleMutateBounded(b, deps));
  routes.set(
    "/validate",
    withGenerateWork((b) => handleValidate(b, deps), deps),
  );
  for (const group of registeredGroups(groups)) {
    const own = groupDeps(deps, group);
    routes.set(groupPath("mutate", group), (b) => handleMutateBounded(b, own, group));
    routes.set(
      groupPath("validate", group),
      withGenerateWork((b) => handleValidate(b, own, group), own, group),
    );
  }
  routes.set("/policyvalidate", (b) => handlePolicyValidateVetted(b, deps));
  // Accepted unchanged, as Kyverno does; a body that is not an AdmissionReview gets a 400 like on every other path.
  routes.set("/policymutate", (b) => {
    const parsed = parseReview(b);
    if (!parsed.ok) return { status: 400, body: { error: parsed.error } };
    return {
      status: 200,
      body: {
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: { uid: parsed.request.uid, allowed: true },
      },
    };
  });
  return routes;
}

/** The validate webhooks take the reviews that arrive together as one batch (evaluated policy by policy). */
export function admissionBatchRoutes(
  deps: AdmissionDeps,
  groups: TimeoutGroups = DEFAULT_GROUPS,
): Map<string, BatchRouteHandler> {
  const routes = new Map<string, BatchRouteHandler>();
  routes.set(
    "/validate",
    withGenerateWorkBatch((bodies) => handleValidateBatch(bodies, deps), deps),
  );
  for (const group of registeredGroups(groups)) {
    const own = groupDeps(deps, group);
    routes.set(
      groupPath("validate", group),
      withGenerateWorkBatch((bodies) => handleValidateBatch(bodies, own, group), own, group),
    );
  }
  return routes;
}

export async function startServers(o: StartOptions): Promise<RunningServers> {
  const pressure = watchMemoryPressure({
    ...(o.bounds.memoryLimitBytes !== undefined ? { limitBytes: o.bounds.memoryLimitBytes } : {}),
    onChange: (reason) => {
      if (reason === undefined)
        o.logger.info({}, "bylaw serve: memory is back under its bounds; reviews are served again");
      else
        o.logger.warn(
          { reason },
          "bylaw serve: memory is near its limit; reviews are answered 503 (the webhooks' failurePolicy applies) until it falls",
        );
    },
  });
  const routes = admissionRoutes(o.deps, o.groups);
  const webhook = createWebhookServer({
    tls: { cert: o.tls.cert, key: o.tls.key },
    host: o.host,
    port: o.port,
    routes,
    batchRoutes: admissionBatchRoutes(o.deps, o.groups),
    health: { live: () => true, ready: () => o.source.readiness() },
    maxBodyBytes: o.maxBodyBytes,
    jsonLimits: o.bounds.jsonLimits,
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
  const metricsServer = o.metricsPort !== undefined ? await startMetrics(o, o.metricsPort) : undefined;
  const metricsPort = metricsServer?.port;
  const ui = o.ui !== undefined ? await startUi(o, o.ui) : undefined;
  return {
    port,
    metricsPort,
    uiPort: ui?.port,
    close: async (graceMs) => {
      pressure.stop();
      await Promise.all([webhook.close({ graceMs }), metricsServer?.server.close(), ui?.server.close()]);
      o.metricsAuth?.close();
      o.ui?.reads.close();
    },
  };
}

/** The metrics server on `port`: plain, or with --metrics-auth token over HTTPS with the webhook's (reloaded) certificate. */
async function startMetrics(o: StartOptions, port: number): Promise<{ port: number; server: MetricsServer }> {
  const server = createMetricsServer({
    host: o.host,
    port,
    render: async () => ({ contentType: o.registry.contentType, body: await o.registry.metrics() }),
    ...(o.metricsAuth !== undefined
      ? { tls: { cert: o.tls.cert, key: o.tls.key }, authorize: o.metricsAuth.authorize }
      : {}),
  });
  if (o.metricsAuth !== undefined) o.tls.onReload((tls) => server.setTls(tls));
  return { port: (await server.listen()).port, server };
}

/**
 * The report UI on `port` (docs/adr/0022-report-ui.md), over HTTPS with the webhook's (reloaded) certificate.
 * Loaded only when asked for: its browser pages (the playground carries a whole engine) are ~3 MiB of
 * text a webhook without --ui-port would hold for nothing.
 */
async function startUi(o: StartOptions, ui: UiSettings): Promise<{ port: number; server: UiServer }> {
  const { createUiServer } = await import("../../ui/ui-server.js");
  const server = createUiServer({
    host: o.host,
    port: ui.port,
    tls: { cert: o.tls.cert, key: o.tls.key },
    reads: ui.reads,
    // The "why" panel's engine reads nothing from the cluster with Bylaw's rights (explain-result.ts).
    engine: createOfflineEngine(),
    onError: (error) => o.logger.error({ err: error }, "bylaw serve: report UI request failed"),
  });
  o.tls.onReload((tls) => server.setTls(tls));
  return { port: (await server.listen()).port, server };
}

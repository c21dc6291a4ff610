export { createWebhookServer, DEFAULT_MAX_BODY_BYTES, LIVENESS_PATH, READINESS_PATH } from "./webhook-server.js";
export { createMetricsServer, DEFAULT_METRICS_PORT, METRICS_PATH } from "./metrics-server.js";
export { findJsonSyntaxError, parseJson } from "./json-syntax-error.js";
export type { JsonSyntaxProblem } from "./json-syntax-error.js";
export type {
  HandlerResult,
  RouteHandler,
  BatchRouteHandler,
  Health,
  TlsMaterial,
  WebhookServer,
  WebhookServerOptions,
  MetricsServer,
  MetricsServerOptions,
} from "./types.js";
export { DEFAULT_MAX_CONNECTIONS } from "./webhook-server.js";
export { InFlightBudget } from "./in-flight-budget.js";
export { heapBudgetBytes, watchMemoryPressure } from "./memory-pressure.js";
export type { MemoryPressure, MemoryPressureOptions } from "./memory-pressure.js";

export { createWebhookServer } from "./webhook-server.js";
export { createMetricsServer } from "./metrics-server.js";
export { parseJson } from "./json-syntax-error.js";

export type { HandlerResult, RouteHandler, BatchRouteHandler, MetricsServer } from "./types.js";
export { DEFAULT_MAX_CONNECTIONS } from "./webhook-server.js";

export { heapBudgetBytes, watchMemoryPressure } from "./memory-pressure.js";
export { DEFAULT_JSON_LIMITS, type JsonLimits } from "./json-limits.js";

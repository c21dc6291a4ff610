export { createMetrics } from "./create-metrics.js";
export type { BylawMetrics } from "./types.js";

export { bindPolicySource } from "./bind-policy-source.js";
export { cleanupCounters } from "./cleanup-counters.js";
export { registerMonitoringGauges } from "./monitoring-gauges.js";
export { backgroundScanFailures } from "./background-scan-counter.js";
export { controllerCounters } from "./controller-counters.js";
export { updateRequestGauge } from "./update-request-gauge.js";

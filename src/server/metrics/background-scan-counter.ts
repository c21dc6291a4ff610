/**
 * `bylaw_background_scan_failures_total`: background scan passes of the reports controller that
 * failed (each is logged, "reports: scan failed"); deploy/monitoring/alerts.rules.yaml alerts on it.
 */
import { Counter, type Registry } from "prom-client";

export function backgroundScanFailures(registry: Registry): () => void {
  const counter = new Counter({
    name: "bylaw_background_scan_failures_total",
    help: "Background scan passes that failed (the reports controller logs why)",
    registers: [registry],
  });
  return () => counter.inc();
}

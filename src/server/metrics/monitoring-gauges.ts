/**
 * The monitoring component's families on /metrics (controllers/monitoring): one prom-client Gauge
 * per family, whose samples are replaced from `families()` at each scrape, so a series whose report
 * row is gone (the resource fixed, the report deleted) leaves /metrics at once.
 */
import { Gauge, type Registry } from "prom-client";
import type { Family } from "../../controllers/monitoring/index.js";

export function registerMonitoringGauges(registry: Registry, families: () => readonly Family[]): void {
  for (const family of families()) {
    new Gauge({
      name: family.name,
      help: family.help,
      labelNames: family.labelNames,
      registers: [registry],
      collect() {
        this.reset();
        const current = families().find((f) => f.name === family.name);
        for (const s of current?.samples ?? []) this.set(s.labels, s.value);
      },
    });
  }
}

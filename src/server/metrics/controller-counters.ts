/**
 * Kyverno's controller counters on /metrics (spec §10: `kyverno_controller_reconcile_total`,
 * `kyverno_controller_requeue_total` with `num_requeues`, `kyverno_controller_drop_total`, each
 * labelled `controller_name`), counted from what the controllers' loops report
 * (src/controllers/reconcile-metrics.ts): every finished item is a reconcile, and a requeue or a
 * drop is counted beside it, as Kyverno counts a reconcile before it decides what follows.
 */
import { Counter, type Registry } from "prom-client";
import type { OnReconciled } from "../../controllers/reconcile-metrics.js";

export function controllerCounters(registry: Registry): OnReconciled {
  const reconcile = new Counter({
    name: "kyverno_controller_reconcile_total",
    help: "can be used to track number of reconciliation cycles",
    labelNames: ["controller_name"],
    registers: [registry],
  });
  const requeue = new Counter({
    name: "kyverno_controller_requeue_total",
    help: "can be used to track number of reconciliation errors",
    labelNames: ["controller_name", "num_requeues"],
    registers: [registry],
  });
  const drop = new Counter({
    name: "kyverno_controller_drop_total",
    help: "can be used to track number of queue drops",
    labelNames: ["controller_name"],
    registers: [registry],
  });
  return (controller, r) => {
    reconcile.inc({ controller_name: controller });
    if (r.result === "requeued") requeue.inc({ controller_name: controller, num_requeues: String(r.requeues) });
    else if (r.result === "dropped") drop.inc({ controller_name: controller });
  };
}

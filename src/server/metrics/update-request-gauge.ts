/**
 * `kyverno_updaterequest_total{resource_namespace}`: how many UpdateRequests are in Bylaw's namespace
 * now, as Kyverno 1.19's background controller exposes it (an observable gauge read from its
 * UpdateRequest lister at each scrape, labelled with the namespace they live in). Bylaw reads the
 * generate controller's informer cache at each scrape; before that cache has listed once there is
 * no sample (a 0 would claim an empty queue nobody has looked at).
 */
import { Gauge, type Registry } from "prom-client";

export function updateRequestGauge(
  registry: Registry,
  namespace: string,
  /** The UpdateRequests in the cache now; undefined until it has listed. */
  count: () => number | undefined,
): void {
  new Gauge({
    name: "kyverno_updaterequest_total",
    help: "can be used to track the current number of updaterequests in the cluster",
    labelNames: ["resource_namespace"],
    registers: [registry],
    collect() {
      this.reset();
      const n = count();
      if (n !== undefined) this.set({ resource_namespace: namespace }, n);
    },
  });
}

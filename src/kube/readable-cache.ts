/**
 * The live cache a context read (configMap, apiCall GET, CEL resource.Get/List) is answered from,
 * or why it cannot answer now: the watched-type budget refused it, it has not synced, it is over
 * its memory budget, or the namespace read is over its share of the cache memory. A list the API
 * server refused (403, 404) is a failed call, as Kyverno's GET would be: an apiCall.default takes it.
 */
import { err, ok, type Result } from "../engine/index.js";
import type { Informer } from "./informer.js";
import type { LiveCluster } from "./live-cluster.js";
import { gvrKey, type Gvr } from "./types.js";

/**
 * The cache for a resource, or why it cannot answer now for `scope.namespace` (undefined: every
 * namespace); `scope.reader` is the reading policy's namespace ("" cluster-wide), whose
 * watched-type budget a new cache counts against.
 */
export function readable(
  cluster: LiveCluster,
  gvr: Gvr,
  what: string,
  scope: { readonly reader: string; readonly namespace: string | undefined },
): Result<Informer> {
  const cache = cluster.cacheFor(gvr, scope.reader);
  if (!cache.ok) return err("not-ready", `${what}: ${cache.reason}`);
  const inf = cache.informer;
  const health = inf.health(scope.namespace);
  if (!cluster.isSynced(gvr)) {
    // The API server refused the list (forbidden, no such resource): the call failed as Kyverno's
    // live call would, an error an apiCall.default replaces, not data missing from a cache.
    if (inf.refusedStatus !== undefined) return err("context", `${what}: ${inf.lastFailure ?? ""}`);
    // An unhealthy cache's reason already says it has not synced, with the failure (e.g. a forbidden list).
    return err(
      "not-ready",
      `${what}: ${health.ok ? `the ${gvrKey(gvr)} cache has not synced yet` : health.reason}; Bylaw reads it from a watch, started when a policy first needs it`,
    );
  }
  if (!health.ok) return err("not-ready", `${what}: ${health.reason}`);
  return ok(inf);
}

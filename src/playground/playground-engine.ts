/**
 * The playground's engine: the browser's ports and the offline context `bylaw apply` has without a
 * cluster. The resources pasted answer apiCall GETs and validate.cel paramRefs, as `bylaw apply`'s
 * resources do; anything else a rule would read from a cluster or a registry is an error naming it.
 */
import { createEngine, type Engine, type JsonObject } from "../engine/index.js";
import { offlineContextSources, offlineHosts } from "../platform/offline-context.js";
import { browserClock, browserHasher, browserRandom, browserSignatures } from "./browser-ports.js";

export function createPlaygroundEngine(resources: () => readonly JsonObject[]): Engine {
  return createEngine({
    clock: browserClock,
    random: browserRandom,
    hasher: browserHasher,
    context: offlineContextSources({
      noRegistryHint: "the playground reads no image registry; run `bylaw apply --registry`",
      apiCallObjects: resources,
      params: resources,
    }),
    hosts: offlineHosts,
    signatures: browserSignatures,
  });
}

/**
 * The engine ports of `bylaw serve`, in one place: the server's engine and every evaluation worker's
 * are built from them, so a review gives the same results on either.
 */
import type { EnginePorts } from "../../engine/ports.js";
import { cryptoRandom, nodeHasher, systemClock } from "../../platform/node-ports.js";
import { offlineContextSources, offlineHosts } from "../../cli/offline/offline-context.js";

export function servingEnginePorts(): EnginePorts {
  return { clock: systemClock, random: cryptoRandom, hasher: nodeHasher, context: offlineContextSources({}), hosts: offlineHosts };
}

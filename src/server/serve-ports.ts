/**
 * The engine ports of `bylaw serve`: the system clock, crypto randomness and hashing, and the live
 * context sources when serve reads a cluster (`--cluster`, server/app/live-context-setup.ts). Unlike `bylaw
 * apply`, no values file can stand in for a context entry here, so an entry that cannot be loaded
 * makes its rule an evaluation error (answered under the policy's failurePolicy) instead of leaving
 * the variable unset. A MutatingPolicy's ApplyConfiguration is typed with the cluster's OpenAPI v3
 * when serve reads a cluster (kube/openapi-typed-kinds.ts), else with the built-in kinds, as
 * Kyverno's CLI types it.
 */
import { builtinTypedKinds, type ContextSources, type EnginePorts, type TypedKinds } from "../engine/index.js";
import { cryptoRandom, nodeHasher, nodeSignatures, systemClock } from "../platform/node-ports.js";
import { offlineContextSources, offlineHosts } from "../platform/offline-context.js";

/** Without --cluster, serve reads no registry (live registry reads come with the cluster session). */
const SERVE_REGISTRY_HINT = "bylaw serve reads image registries only with --cluster";

export function servePorts(
  options: {
    /** The live context sources (`--cluster`). */
    readonly live?: ContextSources | undefined;
    /** The cluster's kinds (`--cluster`); default the built-in kinds. */
    readonly typedKinds?: TypedKinds | undefined;
  } = {},
): EnginePorts {
  const { live } = options;
  return {
    clock: systemClock,
    random: cryptoRandom,
    hasher: nodeHasher,
    context: live ?? { ...offlineContextSources({ noRegistryHint: SERVE_REGISTRY_HINT }), unloadable: "error" },
    hosts: offlineHosts,
    signatures: nodeSignatures,
    typedKinds: options.typedKinds ?? builtinTypedKinds,
  };
}

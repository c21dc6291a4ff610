/**
 * An engine for a program with no cluster at hand (a CLI run, a cdk8s or Pulumi synth, a test):
 * Node's clock, crypto randomness and hashing, and context entries answered only from what the
 * caller gives (mocked apiCall responses, globalContext entries). A rule that reads anything else
 * from a cluster is an error result naming the entry, never a pass. The built-in kinds are typed as
 * Kyverno's CLI types them (Kubernetes 1.32's OpenAPI).
 */
import {
  builtinTypedKinds,
  createEngine,
  type Engine,
  type JsonObject,
  offlineTypedKinds,
  typedKindsWithCrds,
} from "../engine/index.js";
import { cryptoRandom, nodeHasher, nodeSignatures, systemClock } from "./node-ports.js";
import { offlineContextSources, offlineHosts, type OfflineContextOptions } from "./offline-context.js";

export function createOfflineEngine(
  options: OfflineContextOptions & {
    /** CustomResourceDefinitions whose kinds are typed too (`--crd-paths`), as Kyverno's CLI types them. */
    readonly crds?: readonly JsonObject[];
  } = {},
): Engine {
  return createEngine({
    clock: systemClock,
    random: cryptoRandom,
    hasher: nodeHasher,
    context: offlineContextSources(options),
    hosts: offlineHosts,
    signatures: nodeSignatures,
    // A MutatingPolicy's ApplyConfiguration is converted with the built-in kinds' types (and the CRDs'),
    // as Kyverno's CLI does; on a kind neither declares it is an error, as there.
    typedKinds: offlineTypedKinds(
      options.crds !== undefined && options.crds.length > 0 ? typedKindsWithCrds(options.crds) : builtinTypedKinds,
    ),
  });
}

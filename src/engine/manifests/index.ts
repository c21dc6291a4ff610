/** validate.manifests: signed YAML verified offline against keys given inline (k8s-manifest-sigstore's format). */
export type { CompiledManifests, CompiledManifestsRule } from "./types.js";
export { compileManifests } from "./compile-manifests.js";
export { verifyManifests } from "./verify-manifests.js";

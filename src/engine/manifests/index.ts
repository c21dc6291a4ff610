/** validate.manifests: signed YAML verified offline against keys given inline (k8s-manifest-sigstore's format). */
export type {
  AttestorEntry,
  AttestorSet,
  CompiledManifests,
  CompiledManifestsRule,
  FieldBinding,
  ObjectPattern,
} from "./types.js";
export { compileManifests, DEFAULT_ANNOTATION_DOMAIN, type ManifestsCompileResult } from "./compile-manifests.js";
export { verifyManifests, type ManifestOutcome } from "./verify-manifests.js";
export { diffDocuments, diffString, type Difference } from "./flat-diff.js";

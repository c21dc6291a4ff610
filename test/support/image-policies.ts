/**
 * Image policies tests share: a ValidatingPolicy whose CEL reads the Pod's first image's config
 * through `image.GetMetadata` and denies a root user (with test/support/test-registry.ts), and an
 * ImageValidatingPolicy that needs no registry.
 */
export const CEL_NO_ROOT_POLICY = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: cel-no-root}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  validations:
    - expression: "image.GetMetadata(object.spec.containers[0].image).config.config.User != 'root'"
      message: the image runs as root
`;

/**
 * An ImageValidatingPolicy whose own check needs no registry (no digest or signature required): each
 * container image must come from ghcr.io. Audit.
 */
export const GHCR_ONLY_IVP = `apiVersion: policies.kyverno.io/v1
kind: ImageValidatingPolicy
metadata: {name: ghcr-only}
spec:
  validationActions: [Audit]
  validationConfigurations: {verifyDigest: false, required: false}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  matchImageReferences: [{glob: "*"}]
  attestors:
    - {name: cosign, cosign: {key: {data: "-----BEGIN PUBLIC KEY-----\\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8nXRh950IZbRj8Ra/N9sbqOPZrfM\\n5/KAQN0/KjHcorm/J5yctVd7iEcnessRQjU917hmKO6JWVGHpDguIyakZA==\\n-----END PUBLIC KEY-----"}}}
  validations: [{expression: "images.containers.all(i, i.startsWith('ghcr.io/'))", message: images come from ghcr.io}]
`;

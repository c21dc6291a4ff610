/**
 * Policies the registry tests share (with test/support/test-registry.ts): a ValidatingPolicy whose
 * CEL reads the Pod's first image's config through `image.GetMetadata` and denies a root user.
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

/**
 * The generate and mutate-existing controllers are opt-in in `serve` (`--generate-controller-as SA`): they
 * act as the background controller's ServiceAccount, which Bylaw's may impersonate only with this grant
 * (not in deploy/). Applied by the cluster tests and benches that run those controllers in `serve`.
 */
export const GENERATE_AS_BACKGROUND = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: bylaw:generate-as-background-controller
  namespace: bylaw
rules:
  - apiGroups: [""]
    resources: [serviceaccounts]
    resourceNames: [bylaw-background-controller]
    verbs: [impersonate]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: bylaw:generate-as-background-controller
  namespace: bylaw
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: bylaw:generate-as-background-controller
subjects:
  - kind: ServiceAccount
    name: bylaw
    namespace: bylaw
`;

/** The `serve` argument that turns those controllers on, acting as the background controller. */
export const GENERATE_AS_BACKGROUND_ARGS = "--generate-controller-as bylaw-background-controller";

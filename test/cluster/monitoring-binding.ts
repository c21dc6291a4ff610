/**
 * The ClusterRoleBinding the monitoring cluster tests apply: Bylaw's ServiceAccount (the one
 * `scripts/cluster.sh up --with-bylaw` runs it as) bound to the shipped `bylaw:monitoring` ClusterRole,
 * as a user who runs the monitoring component in the admission process would bind it.
 */
export const MONITORING_BINDING = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: bylaw-runs-monitoring
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: bylaw:monitoring
subjects:
  - kind: ServiceAccount
    name: bylaw
    namespace: bylaw
`;

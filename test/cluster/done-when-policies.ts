/** The objects done-when.cluster-test.ts applies with kubectl: policies, ConfigMaps and RBAC. */

/** Lets Bylaw read Pods for an apiCall, as users grant it to Kyverno (aggregated into its ClusterRole). */
export const READ_PODS_ROLE = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: bylaw-e2e:read-pods
  labels:
    rbac.kyverno.io/aggregate-to-admission-controller: "true"
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get, list, watch]
`;

export const MAX_TWO_PODS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: max-two-pods
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
  rules:
    - name: count
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [quota]
              operations: [CREATE]
      context:
        - name: podcount
          apiCall:
            urlPath: "/api/v1/namespaces/{{request.namespace}}/pods"
            jmesPath: "length(items)"
      validate:
        message: "at most 2 Pods in {{request.namespace}}, found {{podcount}}"
        deny:
          conditions:
            any:
              - key: "{{podcount}}"
                operator: GreaterThanOrEquals
                value: 2
`;

export const REGISTRIES_CONFIGMAP = (allowed: string): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: allowed-registries
  namespace: registry-config
data:
  allowed: "${allowed}"
`;

export const ALLOWED_REGISTRIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: allowed-registries
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
  rules:
    - name: registry
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [images]
              operations: [CREATE]
      context:
        - name: registries
          configMap:
            name: allowed-registries
            namespace: registry-config
      validate:
        message: "image registry {{ split(request.object.spec.containers[0].image, '/')[0] }} is not in registry-config/allowed-registries ({{ registries.data.allowed }})"
        deny:
          conditions:
            any:
              - key: "{{ contains(split(registries.data.allowed, ','), split(request.object.spec.containers[0].image, '/')[0]) }}"
                operator: Equals
                value: false
`;

export const PROD_NEEDS_TEAM = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: prod-needs-team
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
  rules:
    - name: team-label
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaceSelector:
                matchLabels:
                  env: prod
      validate:
        message: "label 'team' is required in production namespaces"
        pattern:
          metadata:
            labels:
              team: "?*"
`;

/** alice may create ConfigMaps in namespace team (RBAC), with the configmap-writer role only. */
export const ALICE_WRITER = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: configmap-writer
  namespace: team
rules:
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: alice-writer
  namespace: team
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: configmap-writer
subjects:
  - apiGroup: rbac.authorization.k8s.io
    kind: User
    name: alice
`;

export const ALICE_APPROVER = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: configmap-approver
  namespace: team
rules:
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: alice-approver
  namespace: team
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: configmap-approver
subjects:
  - apiGroup: rbac.authorization.k8s.io
    kind: User
    name: alice
`;

export const NEEDS_APPROVER = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: needs-approver
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
  rules:
    - name: approver
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [team]
              operations: [CREATE]
      validate:
        message: "only team:configmap-approver may create ConfigMaps here"
        deny:
          conditions:
            any:
              - key: "{{ contains(request.roles, 'team:configmap-approver') }}"
                operator: Equals
                value: false
`;

/** Unparsable JMESPath in a deny condition: were it served, it would deny every ConfigMap in namespace selected. */
export const INVALID_JMESPATH = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: broken-jmespath
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
  rules:
    - name: broken
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [selected]
      validate:
        message: "never served"
        deny:
          conditions:
            any:
              - key: "{{ request.object.metadata.[name }}"
                operator: NotEquals
                value: ""
`;

/**
 * The cross-tenant read suite's objects (tenant-reads.cluster-test.ts, issue 32 §1): what the
 * cluster admin sets up (GlobalContextEntries over kube-system and tenant-b, ClusterPolicies that
 * load those canaries and echo request fields in their messages, a clusterRoles exclusion for
 * platform operators) and what the namespace admin of tenant-a writes to read them.
 */

/** The tenant's rights: admin in tenant-a (bindings included), and the policy kinds there. */
export const TENANT_RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: tenant-a-admin, namespace: tenant-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-a-admin}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: policy-author, namespace: tenant-a}
rules:
  - apiGroups: [kyverno.io]
    resources: [policies]
    verbs: ["*"]
  - apiGroups: [policies.kyverno.io]
    resources: [namespacedvalidatingpolicies, namespacedmutatingpolicies, namespacedgeneratingpolicies, policyexceptions]
    verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: policy-author, namespace: tenant-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: policy-author}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-a-admin}]
`;

/**
 * The admin's side: GlobalContextEntries over the canaries, a ClusterPolicy that reads one (so the
 * entries are loaded), a ClusterRole for platform operators bound cluster-wide to one of them, and
 * that operator's right to write ConfigMaps in tenant-a (the control of the exclusion).
 */
export const ADMIN_SETUP = `apiVersion: kyverno.io/v2alpha1
kind: GlobalContextEntry
metadata: {name: ks-canary}
spec:
  kubernetesResource: {version: v1, resource: configmaps, namespace: kube-system}
  projections: [{name: values, jmesPath: "[?metadata.name == 'canary'].data.value"}]
---
apiVersion: kyverno.io/v2alpha1
kind: GlobalContextEntry
metadata: {name: b-canary}
spec:
  kubernetesResource: {version: v1, resource: configmaps, namespace: tenant-b}
  projections: [{name: values, jmesPath: "[?metadata.name == 'canary'].data.value"}]
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: uses-entries}
spec:
  validationFailureAction: Audit
  background: false
  rules:
    - name: r
      match:
        any:
          - resources: {kinds: [ConfigMap], selector: {matchLabels: {admin-only: "yes"}}}
      context:
        - name: ks
          globalReference: {name: ks-canary.values}
      validate:
        message: "admin reads {{ length(ks) }}"
        deny: {}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: platform-exempt}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: platform-operator-exempt}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: platform-exempt}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: platform-operator}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: platform-operator-edit, namespace: tenant-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: platform-operator}]
`;

const ENFORCE = `validationFailureAction: Enforce
  failurePolicy: Fail
  background: false`;

/** One rule of ECHO_POLICY: ConfigMaps labelled echo=<name>, always denied with `message`. */
const echoRule = (name: string, message: string): string => `    - name: ${name}
      match:
        any:
          - resources: {kinds: [ConfigMap], selector: {matchLabels: {echo: ${name}}}}
      context:
        - name: cfg
          configMap: {name: canary, namespace: kube-system}
        - name: bcfg
          configMap: {name: canary, namespace: tenant-b}
      validate:
        message: ${JSON.stringify(message)}
        deny: {}
`;

/**
 * An admin's ClusterPolicy that loads the kube-system and tenant-b canaries into its context and
 * echoes request fields in its messages: a data value, an annotation, the annotations map (as
 * JSON text), and a shallow `{{- }}` variable. A tenant controls every echoed value.
 */
export const ECHO_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: echo}
spec:
  ${ENFORCE}
  rules:
${echoRule("data", "data.x {{ request.object.data.x }} is not allowed")}${echoRule(
  "annotation",
  "note {{ request.object.metadata.annotations.note }} is not allowed",
)}${echoRule("map", "annotations {{ request.object.metadata.annotations }} are not allowed")}${echoRule(
  "shallow",
  "{{- request.object.data.x }} is not allowed",
)}${echoRule("nested", "label {{ request.object.metadata.labels.{{ request.object.data.key }} }} is not allowed")}`;

/** An admin's ClusterPolicy: ConfigMaps labelled protected=yes are denied everywhere, except to holders of the platform-exempt ClusterRole. */
export const PROTECTED_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: protected}
spec:
  ${ENFORCE}
  rules:
    - name: only-platform
      match:
        any:
          - resources: {kinds: [ConfigMap], selector: {matchLabels: {protected: "yes"}}}
      exclude:
        any:
          - clusterRoles: [platform-exempt]
      validate:
        message: "only platform operators may create protected ConfigMaps"
        deny: {}
`;

export interface ReadAttempt {
  readonly what: string;
  readonly object: string;
  /** The field the policy-validating webhook names. */
  readonly field: RegExp;
}

const matchConstraints = `matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]`;

/** Each way a tenant's document reaches CEL's globalContext (tenant-isolation rule 3). */
export const GLOBAL_CONTEXT_ATTEMPTS: readonly ReadAttempt[] = [
  {
    what: "NamespacedValidatingPolicy variable echoed by its messageExpression",
    object: `apiVersion: policies.kyverno.io/v1beta1
kind: NamespacedValidatingPolicy
metadata: {name: gce-variable, namespace: tenant-a}
spec:
  validationActions: [Deny]
  ${matchConstraints}
  variables:
    - name: stolen
      expression: 'globalContext.Get("ks-canary", "")'
  validations:
    - expression: "false"
      messageExpression: "'read: ' + string(variables.stolen)"
`,
    field: /spec\.variables\[0\]\.expression: .*globalContext is not allowed/,
  },
  {
    what: "NamespacedValidatingPolicy validation expression, reached through a list (camel-case get)",
    object: `apiVersion: policies.kyverno.io/v1beta1
kind: NamespacedValidatingPolicy
metadata: {name: gce-validation, namespace: tenant-a}
spec:
  validationActions: [Deny]
  ${matchConstraints}
  validations:
    - expression: "[globalContext][0].get('b-canary', 'values').size() == 0"
      message: "tenant-b has a canary"
`,
    field: /spec\.validations\[0\]\.expression: .*globalContext is not allowed/,
  },
  {
    what: "NamespacedValidatingPolicy matchConditions",
    object: `apiVersion: policies.kyverno.io/v1beta1
kind: NamespacedValidatingPolicy
metadata: {name: gce-condition, namespace: tenant-a}
spec:
  validationActions: [Deny]
  ${matchConstraints}
  matchConditions:
    - name: peek
      expression: "string(globalContext.Get('ks-canary', 'values')).startsWith('canary-cm-ks-0')"
  validations:
    - expression: "false"
      message: "the kube-system canary starts with 0"
`,
    field: /spec\.matchConditions\[0\]\.expression: .*globalContext is not allowed/,
  },
  {
    what: "NamespacedMutatingPolicy",
    object: `apiVersion: policies.kyverno.io/v1beta1
kind: NamespacedMutatingPolicy
metadata: {name: gce-mutate, namespace: tenant-a}
spec:
  ${matchConstraints}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "Object{data: {'stolen': string(globalContext.Get('ks-canary', 'values'))}}"
`,
    field: /spec\.mutations\[0\]\.applyConfiguration\.expression: .*globalContext is not allowed/,
  },
  {
    what: "policies.kyverno.io PolicyException matchConditions",
    object: `apiVersion: policies.kyverno.io/v1beta1
kind: PolicyException
metadata: {name: gce-exception, namespace: tenant-a}
spec:
  policyRefs: [{name: any, kind: ValidatingPolicy}]
  matchConditions:
    - name: peek
      expression: "globalContext.Get('b-canary', 'values').size() > 0"
`,
    field: /spec\.matchConditions\[0\]\.expression: .*globalContext is not allowed/,
  },
  {
    what: "kyverno.io Policy globalReference (refused before this issue too)",
    object: `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: gce-legacy, namespace: tenant-a}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: r
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      context:
        - name: stolen
          globalReference: {name: ks-canary.values}
      validate:
        message: "read: {{ stolen }}"
        deny: {}
`,
    field: /context\[0\]\.globalReference: .*globalReference is not allowed/,
  },
];

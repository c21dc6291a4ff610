/**
 * The tenant suite's controller attacks (tenant-controllers.cluster-test.ts): what a namespace admin
 * of `tenant-a` writes to make Bylaw's generate, mutate-existing and cleanup controllers act outside
 * tenant-a. Every rule matches the tenant-a ConfigMaps labelled `attack: <policy name>`; the
 * trigger's other labels (`target`, `source`, `kind`) carry what only substitution reveals.
 */

/** What the tenant may also write besides kyverno.io Policies (the kit's TENANT_RBAC): cleanup policies. */
export const TENANT_CLEANUP_RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cleanup-author, namespace: tenant-a}
rules:
  - apiGroups: [kyverno.io]
    resources: [cleanuppolicies]
    verbs: ["*"]
  - apiGroups: [policies.kyverno.io]
    resources: [namespaceddeletingpolicies]
    verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cleanup-author, namespace: tenant-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cleanup-author}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-a-admin}]
`;

/**
 * What the admin grants Bylaw's controllers, as Kyverno's docs say (aggregated ClusterRoles): the
 * background controller writes ConfigMaps and Secrets and reads Namespaces anywhere, the cleanup
 * controller deletes ConfigMaps and Namespaces anywhere. So what stops a tenant is Bylaw's own
 * guard, not a missing permission.
 */
export const CONTROLLER_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tenant-suite:background
  labels: {rbac.kyverno.io/aggregate-to-background-controller: "true"}
rules:
  - apiGroups: [""]
    resources: [configmaps, secrets]
    verbs: [get, list, watch, create, update, patch, delete]
  - apiGroups: [""]
    resources: [namespaces]
    verbs: [get, list, watch, update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tenant-suite:cleanup
  labels: {rbac.kyverno.io/aggregate-to-cleanup-controller: "true"}
rules:
  - apiGroups: [""]
    resources: [configmaps, namespaces]
    verbs: [get, list, watch, delete]
`;

const header = (name: string, spec = ""): string => `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: ${name}
  namespace: tenant-a
spec:
${spec}  rules:
    - name: ${name}
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              selector: {matchLabels: {attack: ${name}}}
`;

/** A Policy whose one rule generates `body` (indented under `generate:`). */
const generate = (name: string, body: string): string => `${header(name)}      generate:\n${body}`;

/** A Policy whose one mutate-existing rule has `targets` and labels them `owned: by-tenant-a`. */
const mutate = (name: string, targets: string): string => `${header(name)}      mutate:
        targets:
${targets}        patchStrategicMerge:
          metadata:
            labels:
              owned: by-tenant-a
`;

export interface ApplyAttempt {
  readonly what: string;
  readonly policy: string;
  /** The policy-validating webhook's reason, with the field. */
  readonly reason: RegExp;
}

/** Attempts the policy-validating webhook sees and must refuse at `kubectl apply`. */
export const APPLY_ATTEMPTS: readonly ApplyAttempt[] = [
  {
    what: "generate into the namespace a trigger label names",
    policy: generate(
      "gen-var-ns",
      `        apiVersion: v1
        kind: ConfigMap
        name: canary
        namespace: "{{ request.object.metadata.labels.target }}"
        synchronize: true
        data: {data: {value: overwritten}}
`,
    ),
    reason:
      /spec\.rules\[0\]\.generate\.namespace: .*a namespaced policy cannot generate resources in other namespaces, expected: tenant-a, received: \{\{ request\.object\.metadata\.labels\.target \}\}/,
  },
  {
    what: "generate a cluster-scoped Namespace",
    policy: generate(
      "gen-cluster",
      `        apiVersion: v1
        kind: Namespace
        name: tenant-a-made
        namespace: tenant-a
        data: {metadata: {labels: {made: by-tenant-a}}}
`,
    ),
    reason: /spec\.rules\[0\]\.generate\.kind: .*cluster-scoped kind Namespace/,
  },
  {
    what: "clone from the namespace a trigger label names",
    policy: generate(
      "clone-var-ns",
      `        apiVersion: v1
        kind: Secret
        name: copied
        namespace: tenant-a
        clone: {namespace: "{{ request.object.metadata.labels.source }}", name: canary}
`,
    ),
    reason:
      /generate\.namespace: .*a namespaced policy cannot clone resources from other namespaces, expected: tenant-a/,
  },
  {
    what: "cloneList from the namespace a trigger label names",
    policy: generate(
      "clonelist-var-ns",
      `        namespace: tenant-a
        cloneList:
          namespace: "{{ request.object.metadata.labels.source }}"
          kinds: [v1/ConfigMap]
          selector: {matchLabels: {canary: "yes"}}
`,
    ),
    reason:
      /generate\.cloneList\.namespace: .*a namespaced policy cannot clone resources from other namespace, expected: tenant-a/,
  },
  {
    what: "cloneList of a cluster-scoped kind",
    policy: generate(
      "clonelist-cluster",
      `        namespace: tenant-a
        cloneList:
          namespace: tenant-a
          kinds: [v1/Namespace]
          selector: {matchLabels: {canary: "yes"}}
`,
    ),
    reason: /generate\.cloneList\.kinds\[0\]: .*cluster-scoped kind Namespace/,
  },
  {
    what: "mutate targets in tenant-b",
    policy: mutate(
      "mut-static-b",
      "          - {apiVersion: v1, kind: ConfigMap, name: canary, namespace: tenant-b}\n",
    ),
    reason: /spec\.rules\[0\]\.mutate\.targets\[0\]\.namespace: .*names namespace "tenant-b"/,
  },
  {
    what: "mutate targets in kube-system by selector",
    policy: mutate(
      "mut-static-ks",
      '          - {apiVersion: v1, kind: ConfigMap, namespace: kube-system, selector: {matchLabels: {canary: "yes"}}}\n',
    ),
    reason: /spec\.rules\[0\]\.mutate\.targets\[0\]\.namespace: .*names namespace "kube-system"/,
  },
  {
    what: "mutate a cluster-scoped target",
    policy: mutate("mut-static-cluster", "          - {apiVersion: v1, kind: Namespace, name: canary-ns}\n"),
    reason: /spec\.rules\[0\]\.mutate\.targets\[0\]\.kind: .*cluster-scoped kind Namespace/,
  },
];

/**
 * Policies the webhook cannot judge (the namespace or kind comes from the trigger, through foreach
 * or a target's fields): stored, and each trigger's request must fail at run time.
 */
export const RUNTIME_POLICIES = [
  generate(
    "gen-into",
    `        synchronize: true
        foreach:
          - list: "[request.object.metadata.labels.target]"
            apiVersion: v1
            kind: ConfigMap
            name: canary
            namespace: "{{ element }}"
            data: {data: {value: overwritten}}
`,
  ),
  generate(
    "clone-in",
    `        foreach:
          - list: "[request.object.metadata.labels.source]"
            apiVersion: v1
            kind: Secret
            name: copied
            namespace: tenant-a
            clone: {namespace: "{{ element }}", name: canary}
`,
  ),
  generate(
    "clonelist-in",
    `        foreach:
          - list: "[request.object.metadata.labels.source]"
            namespace: tenant-a
            cloneList:
              namespace: "{{ element }}"
              kinds: [v1/ConfigMap]
              selector: {matchLabels: {canary: "yes"}}
`,
  ),
  mutate(
    "mut-var",
    '          - {apiVersion: v1, kind: ConfigMap, name: canary, namespace: "{{ request.object.metadata.labels.target }}"}\n',
  ),
];

/**
 * Policies whose kind comes from the trigger: they may write any kind in tenant-a, so only an author
 * allowed every resource there may apply them (tenant-isolation.md rule 4). The tenant is refused;
 * an administrator applies them, and their requests must still fail at run time.
 */
export const ANY_KIND_POLICIES = [
  generate(
    "gen-kind",
    `        synchronize: true
        foreach:
          - list: "[request.object.metadata.labels.kind]"
            apiVersion: v1
            kind: "{{ element }}"
            name: canary-ns
            namespace: tenant-a
            data: {metadata: {labels: {owned: by-tenant-a}}}
`,
  ),
  mutate(
    "mut-kind",
    '          - {apiVersion: v1, kind: "{{ request.object.metadata.labels.kind }}", name: canary-ns}\n',
  ),
];

/** Why the tenant may not apply an ANY_KIND_POLICIES policy. */
export const ANY_KIND_REASON =
  /the policy's author tenant-a-admin may not [a-z, ]+ every resource( named [a-z-]+)? in namespace tenant-a; .*rule 4/;

/**
 * A user who may write policies in tenant-a and nothing else (the `policy-author` Role alone): what
 * their policies would make the background controller do, they may not do themself.
 */
export const AUTHOR_RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: policy-author-only, namespace: tenant-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: policy-author}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-a-author}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cleanup-author-only, namespace: tenant-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cleanup-author}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-a-author}]
`;

/**
 * What the policy-author-only user (who may also write cleanup policies) tries, and the namespace
 * admin a NamespacedGeneratingPolicy: each refused at kubectl apply with the author reason.
 */
export const AUTHOR_ATTEMPTS: readonly (ApplyAttempt & { readonly as: string })[] = [
  {
    what: "generate a ConfigMap in tenant-a",
    as: "tenant-a-author",
    policy: generate(
      "author-gen",
      `        apiVersion: v1
        kind: ConfigMap
        name: made-for-author
        namespace: tenant-a
        data: {data: {a: b}}
`,
    ),
    reason:
      /spec\.rules\[0\]\.generate: the policy's author tenant-a-author may not create, update, get, delete configmaps in namespace tenant-a/,
  },
  {
    what: "mutate tenant-a's Secrets",
    as: "tenant-a-author",
    policy: mutate("author-mut", "          - {apiVersion: v1, kind: Secret, namespace: tenant-a, name: canary}\n"),
    reason:
      /spec\.rules\[0\]\.mutate\.targets\[0\]: the policy's author tenant-a-author may not get, update secrets named canary in namespace tenant-a/,
  },
  {
    what: "a NamespacedGeneratingPolicy (what it writes is computed at run time)",
    as: "tenant-a-admin",
    policy: JSON.stringify({
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedGeneratingPolicy",
      metadata: { name: "author-gpol", namespace: "tenant-a" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        },
        generate: [{ expression: "true" }],
      },
    }),
    reason: /spec\.generate: the policy's author tenant-a-admin may not [a-z, ]+ every resource in namespace tenant-a/,
  },
  {
    what: "a CleanupPolicy over tenant-a's ConfigMaps (the cleanup controller deletes them for the author)",
    as: "tenant-a-author",
    policy: JSON.stringify({
      apiVersion: "kyverno.io/v2",
      kind: "CleanupPolicy",
      metadata: { name: "author-sweep", namespace: "tenant-a" },
      spec: { schedule: "*/1 * * * *", match: { any: [{ resources: { kinds: ["ConfigMap"] } }] } },
    }),
    reason:
      /spec\.match: the policy's author tenant-a-author may not list, delete configmaps in namespace tenant-a; Bylaw's cleanup controller acts for the author/,
  },
  {
    what: "a NamespacedDeletingPolicy over tenant-a's Secrets",
    as: "tenant-a-author",
    policy: JSON.stringify({
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedDeletingPolicy",
      metadata: { name: "author-delete", namespace: "tenant-a" },
      spec: {
        schedule: "*/1 * * * *",
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] }] },
        conditions: [{ name: "any", expression: "true" }],
      },
    }),
    reason:
      /spec\.matchConstraints\.resourceRules: the policy's author tenant-a-author may not list, delete secrets in namespace tenant-a/,
  },
];

/** The reason each runtime policy's request fails with, by policy. */
export const RUNTIME_REASONS: Readonly<Record<string, RegExp>> = {
  "gen-into": /can only generate into its own namespace, not ConfigMap (kube-system|tenant-b)\/canary/,
  "gen-kind": /cannot generate the cluster-scoped Namespace/,
  "clone-in": /may not read Secret in namespace "(tenant-b|kube-system)"/,
  "clonelist-in": /may not read ConfigMap in namespace "(tenant-b|kube-system)"/,
  "mut-var": /can only mutate targets in its own namespace tenant-a \(got (kube-system|tenant-b)\)/,
  "mut-kind": /may not read the cluster-scoped kind Namespace|can only mutate targets in its own namespace/,
};

/** Legitimate work in tenant-a next to objects of the same name elsewhere: a synchronized generate and a mutate by selector. */
export const OWN_POLICIES = [
  generate(
    "sync-own",
    `        apiVersion: v1
        kind: ConfigMap
        name: shared
        namespace: tenant-a
        synchronize: true
        data: {data: {from: "{{ request.object.data.v }}"}}
`,
  ),
  mutate(
    "mut-selector",
    '          - {apiVersion: v1, kind: ConfigMap, selector: {matchLabels: {mutate-me: "yes"}}}\n',
  ),
];

/**
 * A NamespacedMutatingPolicy with mutate-existing: a trigger labelled `nmut-trigger` labels every
 * ConfigMap its target selector (`mutate-me`) picks, which the canaries elsewhere also carry. Its
 * targets are listed in tenant-a only.
 */
export const NAMESPACED_MUTATE_EXISTING = `apiVersion: policies.kyverno.io/v1
kind: NamespacedMutatingPolicy
metadata: {name: nmut-selector, namespace: tenant-a}
spec:
  evaluation: {mutateExisting: {enabled: true}}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
    objectSelector: {matchLabels: {nmut-trigger: "yes"}}
  targetMatchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}]
    objectSelector: {matchLabels: {mutate-me: "yes"}}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"nmut": "done"}}}'
`;

/**
 * Cleanup in tenant-a: a CleanupPolicy and a NamespacedDeletingPolicy over every ConfigMap with their
 * label (no namespace named: theirs only), one over Namespaces, one naming tenant-b. Every minute.
 */
export const CLEANUP_POLICIES: readonly { readonly name: string; readonly kind: string; readonly policy: string }[] = [
  {
    name: "sweep-configmaps",
    kind: "cleanuppolicy",
    policy: cleanupPolicy("sweep-configmaps", 'kinds: [ConfigMap]\n          selector: {matchLabels: {doom-c: "yes"}}'),
  },
  {
    name: "sweep-namespaces",
    kind: "cleanuppolicy",
    policy: cleanupPolicy("sweep-namespaces", 'kinds: [Namespace]\n          selector: {matchLabels: {doom-c: "yes"}}'),
  },
  {
    name: "sweep-tenant-b",
    kind: "cleanuppolicy",
    policy: cleanupPolicy("sweep-tenant-b", "kinds: [ConfigMap]\n          namespaces: [tenant-b, kube-system]"),
  },
  {
    name: "delete-configmaps",
    kind: "namespaceddeletingpolicy",
    policy: `apiVersion: policies.kyverno.io/v1
kind: NamespacedDeletingPolicy
metadata:
  name: delete-configmaps
  namespace: tenant-a
spec:
  schedule: "*/1 * * * *"
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        resources: [configmaps]
  conditions:
    - name: doomed
      expression: "object.metadata.?labels['doom-d'].orValue('') == 'yes'"
`,
  },
  {
    // The namespace admin may not delete Namespaces (not even tenant-a): refused (rule 4).
    name: "delete-namespaces",
    kind: "namespaceddeletingpolicy",
    policy: `apiVersion: policies.kyverno.io/v1
kind: NamespacedDeletingPolicy
metadata:
  name: delete-namespaces
  namespace: tenant-a
spec:
  schedule: "*/1 * * * *"
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        resources: [namespaces]
  conditions:
    - name: doomed
      expression: "object.metadata.?labels['doom-d'].orValue('') == 'yes'"
`,
  },
];

function cleanupPolicy(name: string, resources: string): string {
  return `apiVersion: kyverno.io/v2
kind: CleanupPolicy
metadata:
  name: ${name}
  namespace: tenant-a
spec:
  schedule: "*/1 * * * *"
  match:
    any:
      - resources:
          ${resources}
`;
}

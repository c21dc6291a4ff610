/**
 * The objects of the registration attacks (tenant-registration.cluster-test.ts, issue 32 §8 and §9):
 * tenant Policies whose webhook the API server refuses although Bylaw's CEL compiles them, tenant
 * Policies that match wide, and the admin ClusterPolicies that must stay enforced.
 */

/** A tenant Policy in tenant-a on ConfigMaps whose one matchCondition is `expression`, named `name`. */
export function conditionPolicy(name: string, expression: string, conditionName = "c"): string {
  return JSON.stringify({
    apiVersion: "kyverno.io/v1",
    kind: "Policy",
    metadata: { name, namespace: "tenant-a" },
    spec: {
      background: false,
      webhookConfiguration: { matchConditions: [{ name: conditionName, expression }] },
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          validate: {
            failureAction: "Enforce",
            message: "label team",
            pattern: { metadata: { labels: { team: "?*" } } },
          },
        },
      ],
    },
  });
}

/**
 * What the API server refuses in a webhook's matchConditions and Bylaw's own CEL compiler accepts
 * (checked against kube-apiserver 1.35): literals its compiler validates, a list of mixed types, an
 * expression past its size limit; and what both refuse (a name that is not a qualified name).
 */
export const REFUSED_CONDITIONS: readonly { readonly what: string; readonly policy: string }[] = [
  { what: "an invalid regex literal", policy: conditionPolicy("bad-regex", 'object.metadata.name.matches("(")') },
  { what: "a list of mixed types", policy: conditionPolicy("bad-list", '[1, "a"].size() > 0') },
  { what: "an invalid duration literal", policy: conditionPolicy("bad-duration", 'duration("1x") > duration("0s")') },
  {
    what: "an expression over the API server's size limit",
    policy: conditionPolicy("too-long", `object.metadata.name != "${"x".repeat(200_000)}"`),
  },
  { what: "a condition name that is not a qualified name", policy: conditionPolicy("bad-name", "true", "not a name!") },
];

/** Admin ClusterPolicies applied after a refused tenant Policy got in: each must be enforced. */
export const ADMIN_POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-nodeport}
spec:
  background: false
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Service], operations: [CREATE]}}]}
      validate:
        failureAction: Enforce
        message: "NodePort Services are not allowed"
        deny: {conditions: {any: [{key: "{{ request.object.spec.type || '' }}", operator: Equals, value: NodePort}]}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-service-accounts}
spec:
  background: false
  rules:
    - name: r
      match: {any: [{resources: {kinds: [ServiceAccount], operations: [CREATE], names: ["forbidden-*"]}}]}
      validate: {failureAction: Enforce, message: "ServiceAccounts named forbidden-* are not allowed", deny: {conditions: {any: [{key: "a", operator: Equals, value: "a"}]}}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-pvc}
spec:
  background: false
  rules:
    - name: r
      match: {any: [{resources: {kinds: [PersistentVolumeClaim], operations: [CREATE]}}]}
      validate: {failureAction: Enforce, message: "PersistentVolumeClaims are not allowed", deny: {conditions: {any: [{key: "a", operator: Equals, value: "a"}]}}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: guard-rbac}
spec:
  background: false
  rules:
    - name: r
      match: {any: [{resources: {kinds: [ClusterRole, ClusterRoleBinding], operations: [DELETE], selector: {matchLabels: {protected: "true"}}}}]}
      validate: {failureAction: Enforce, message: "protected RBAC is not deleted", deny: {conditions: {any: [{key: "a", operator: Equals, value: "a"}]}}}
`;

export const NODEPORT = `apiVersion: v1
kind: Service
metadata: {name: np, namespace: tenant-b}
spec: {type: NodePort, ports: [{port: 80}]}
`;
export const SERVICE_ACCOUNT = `apiVersion: v1
kind: ServiceAccount
metadata: {name: forbidden-sa, namespace: tenant-b}
`;
export const PVC = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: claim, namespace: tenant-b}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;

/**
 * Wide tenant Policies: `*` (every kind) and a NamespacedValidatingPolicy on every resource. A Policy
 * over cluster-scoped kinds is CLUSTER_KINDS_POLICY, refused at apply as Kyverno refuses it.
 */
export const WIDE_POLICIES = `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: everything, namespace: tenant-a}
spec:
  background: false
  rules:
    - name: r
      match: {any: [{resources: {kinds: ["*"]}}]}
      validate:
        failureAction: Enforce
        message: "label team is required in tenant-a"
        pattern: {metadata: {labels: {team: "?*"}}}
---
apiVersion: policies.kyverno.io/v1
kind: NamespacedValidatingPolicy
metadata: {name: all-resources, namespace: tenant-a}
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["*"]
        apiVersions: ["*"]
        resources: ["*"]
        operations: [CREATE, UPDATE, DELETE]
  validations:
    - expression: "request.operation == 'DELETE' || has(object.metadata.labels) && 'team' in object.metadata.labels"
      message: "label team is required in tenant-a (CEL)"
`;

/**
 * A tenant Policy over cluster-scoped kinds (Namespace, ClusterRole, ClusterRoleBinding, Node) with DELETE. It
 * carries the `team` label so that WIDE_POLICIES, applied before it, admit it: the API server reports whichever
 * webhook denies first, and only the policy webhook's refusal is under test.
 */
export const CLUSTER_KINDS_POLICY = `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: cluster-kinds, namespace: tenant-a, labels: {team: a}}
spec:
  background: false
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Namespace, ClusterRole, ClusterRoleBinding, Node], operations: [CREATE, UPDATE, DELETE]}}]}
      validate: {failureAction: Enforce, message: "no", deny: {conditions: {any: [{key: "a", operator: Equals, value: "a"}]}}}
`;

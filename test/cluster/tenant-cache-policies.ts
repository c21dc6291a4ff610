/**
 * The objects of the tenant-caches suite (tenant-caches.cluster-test.ts, issue 32 §5 and the
 * cache/watch half of §10): the admin's ConfigMap, ClusterPolicies that read it (configMap,
 * apiCall, globalReference, an apiCall of a type applied late), and what the namespace admin of
 * tenant-a writes: large ConfigMaps, policies that read them, policies that take watched types,
 * and policies that read GlobalContextEntries.
 */

/** How many ConfigMaps the tenant writes, and how large (the issue's 124 of 900 KB). */
export const BIG_COUNT = 124;
const BIG_BYTES = 900 * 1000;

/** The tenant's large ConfigMaps, as one kubectl input. */
export function bigConfigMaps(): string {
  const value = "x".repeat(BIG_BYTES);
  return Array.from({ length: BIG_COUNT }, (_, i) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `big-${i}`, namespace: "tenant-a" },
      data: { v: value },
    }),
  ).join("\n");
}

/** A match by label; a ClusterPolicy's in `namespace`, a tenant Policy's (namespace undefined) in its own. */
const matching = (label: string, namespace?: string): string =>
  `{any: [{resources: {kinds: [ConfigMap],${namespace !== undefined ? ` namespaces: [${namespace}],` : ""} selector: {matchLabels: {check: ${label}}}}}]}`;

/** The admin's ConfigMap in kube-system and a ClusterPolicy reading it by configMap and by apiCall. */
export const ADMIN_READS = `apiVersion: v1
kind: ConfigMap
metadata: {name: admin-settings, namespace: kube-system}
data: {allowed: "yes"}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: admin-reads}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: reads
      match: ${matching("admin", "tenant-b")}
      context:
        - name: settings
          configMap: {name: admin-settings, namespace: kube-system}
        - name: api
          apiCall: {urlPath: /api/v1/namespaces/kube-system/configmaps/admin-settings}
      validate:
        message: "admin reads {{ settings.data.allowed }} {{ api.data.allowed }}"
        # The condition reads what the message shows: an entry that failed to load is the rule's error (Kyverno loads an entry when a query reads it).
        deny: {conditions: {any: [{key: "admin reads {{ settings.data.allowed }} {{ api.data.allowed }}", operator: NotEquals, value: ""}]}}
`;

/** The tenant's reads of its large ConfigMaps: a configMap entry, an apiCall list, and CEL resource.Get/List. */
export const TENANT_READS_BIG = `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: reads-big, namespace: tenant-a}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: one
      match: ${matching("reads-big")}
      context:
        - name: big
          configMap: {name: big-7, namespace: tenant-a}
      validate:
        message: "tenant read {{ length(big.data.v) }}"
        # The condition reads what the message shows: an entry that failed to load is the rule's error (Kyverno loads an entry when a query reads it).
        deny: {conditions: {any: [{key: "tenant read {{ length(big.data.v) }}", operator: NotEquals, value: ""}]}}
    - name: all
      match: ${matching("reads-big")}
      context:
        - name: all
          apiCall: {urlPath: /api/v1/namespaces/tenant-a/configmaps}
      validate:
        message: "tenant listed {{ length(all.items) }}"
        # The condition reads what the message shows: an entry that failed to load is the rule's error (Kyverno loads an entry when a query reads it).
        deny: {conditions: {any: [{key: "tenant listed {{ length(all.items) }}", operator: NotEquals, value: ""}]}}
---
apiVersion: policies.kyverno.io/v1beta1
kind: NamespacedValidatingPolicy
metadata: {name: reads-big-cel, namespace: tenant-a}
spec:
  validationActions: [Deny]
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  matchConditions:
    - name: checked
      expression: "object.metadata.?labels.?check.orValue('') == 'reads-big-cel'"
  validations:
    - expression: "resource.Get('v1', 'configmaps', 'big-9').data.v.size() == 0 && resource.List('v1', 'configmaps').items.size() == 0"
      message: "tenant CEL read the big ConfigMaps"
`;

/** The admin's GlobalContextEntry over kube-system and a ClusterPolicy that reads it. */
export const ADMIN_GLOBALS = `apiVersion: kyverno.io/v2alpha1
kind: GlobalContextEntry
metadata: {name: admin-entry}
spec:
  kubernetesResource: {version: v1, resource: configmaps, namespace: kube-system}
  projections: [{name: allowed, jmesPath: "[?metadata.name == 'admin-settings'].data.allowed"}]
`;

export const ADMIN_GLOBALS_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: admin-globals}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: reads
      match: ${matching("globals", "tenant-b")}
      context:
        - name: g
          globalReference: {name: admin-entry.allowed}
      validate:
        message: "admin global {{ g[0] }}"
        # The condition reads what the message shows: an entry that failed to load is the rule's error (Kyverno loads an entry when a query reads it).
        deny: {conditions: {any: [{key: "admin global {{ g[0] }}", operator: NotEquals, value: ""}]}}
`;

/** The tenant's reads of GlobalContextEntries: CEL resource.List and resource.Get, and an apiCall list. */
export const TENANT_READS_GLOBALS = `apiVersion: policies.kyverno.io/v1beta1
kind: NamespacedValidatingPolicy
metadata: {name: reads-entries, namespace: tenant-a}
spec:
  validationActions: [Deny]
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  matchConditions:
    - name: checked
      expression: "object.metadata.?labels.?check.orValue('') == 'reads-entries'"
  validations:
    - expression: "resource.List('kyverno.io/v2alpha1', 'globalcontextentries').items.size() < 0"
      message: "tenant listed entries"
    - expression: "resource.Get('kyverno.io/v2alpha1', 'globalcontextentries', 'admin-entry').size() < 0"
      message: "tenant got an entry"
---
apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: reads-entries-api, namespace: tenant-a}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: list
      match: ${matching("reads-entries")}
      context:
        - name: entries
          apiCall: {urlPath: /apis/kyverno.io/v2alpha1/namespaces/tenant-a/globalcontextentries}
      validate:
        message: "tenant sees {{ length(entries.items) }} entries"
        # The condition reads what the message shows: an entry that failed to load is the rule's error (Kyverno loads an entry when a query reads it).
        deny: {conditions: {any: [{key: "tenant sees {{ length(entries.items) }} entries", operator: NotEquals, value: ""}]}}
`;

/** Tenant policies naming `count` resource types each: apiCall paths and CEL resource.List calls. */
export function tenantTypes(count: number): string {
  const calls = Array.from(
    { length: count },
    (_, i) =>
      `        - name: t${i}\n          apiCall: {urlPath: /apis/attack.example/v1/namespaces/tenant-a/kind${i}s}`,
  ).join("\n");
  const lists = Array.from(
    { length: count },
    (_, i) => `resource.List('attack.example/v1', 'cel${i}s').items.size() >= 0`,
  ).join(" && ");
  return `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: takes-types, namespace: tenant-a}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: types
      match: ${matching("takes-types")}
      context:
${calls}
      validate:
        message: "tenant types read"
        deny: {}
---
apiVersion: policies.kyverno.io/v1beta1
kind: NamespacedValidatingPolicy
metadata: {name: takes-types-cel, namespace: tenant-a}
spec:
  validationActions: [Deny]
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  matchConditions:
    - name: checked
      expression: "object.metadata.?labels.?check.orValue('') == 'takes-types-cel'"
  validations:
    - expression: "${lists}"
      message: "tenant CEL types read"
`;
}

/** The admin's apiCall of a type no policy read before (Bylaw's ServiceAccount may list ClusterPolicies). */
export const ADMIN_LATE_TYPE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: admin-late-type}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: reads
      match: ${matching("types", "tenant-b")}
      context:
        - name: cps
          apiCall: {urlPath: /apis/kyverno.io/v1/clusterpolicies}
      validate:
        message: "admin sees {{ length(cps.items) }} cluster policies"
        # The condition reads what the message shows: an entry that failed to load is the rule's error (Kyverno loads an entry when a query reads it).
        deny: {conditions: {any: [{key: "admin sees {{ length(cps.items) }} cluster policies", operator: NotEquals, value: ""}]}}
`;

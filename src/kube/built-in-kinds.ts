/**
 * The built-in kinds of Kubernetes 1.35 as discovery names them: group, resource (plural) and
 * scope. Kyverno turns a policy's `kinds` into webhook rules through discovery
 * (`pkg/controllers/webhook`, `FindResources`); registration here needs no discovery call for the
 * built-in kinds. A kind not listed (a custom resource) is registered wide (server/registration/webhook-rules.ts); server/tenancy/tenant-targets.ts refuses a namespaced
 * Policy that names a cluster-scoped one.
 */
interface BuiltInKind {
  readonly group: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

type Row = readonly [kind: string, group: string, resource: string, namespaced: boolean];

const ROWS: readonly Row[] = [
  ["Binding", "", "bindings", true],
  ["ComponentStatus", "", "componentstatuses", false],
  ["ConfigMap", "", "configmaps", true],
  ["Endpoints", "", "endpoints", true],
  ["Event", "", "events", true],
  ["LimitRange", "", "limitranges", true],
  ["Namespace", "", "namespaces", false],
  ["Node", "", "nodes", false],
  ["PersistentVolume", "", "persistentvolumes", false],
  ["PersistentVolumeClaim", "", "persistentvolumeclaims", true],
  ["Pod", "", "pods", true],
  ["PodTemplate", "", "podtemplates", true],
  ["ReplicationController", "", "replicationcontrollers", true],
  ["ResourceQuota", "", "resourcequotas", true],
  ["Secret", "", "secrets", true],
  ["Service", "", "services", true],
  ["ServiceAccount", "", "serviceaccounts", true],
  ["ControllerRevision", "apps", "controllerrevisions", true],
  ["DaemonSet", "apps", "daemonsets", true],
  ["Deployment", "apps", "deployments", true],
  ["ReplicaSet", "apps", "replicasets", true],
  ["StatefulSet", "apps", "statefulsets", true],
  ["CronJob", "batch", "cronjobs", true],
  ["Job", "batch", "jobs", true],
  ["HorizontalPodAutoscaler", "autoscaling", "horizontalpodautoscalers", true],
  ["PodDisruptionBudget", "policy", "poddisruptionbudgets", true],
  ["Ingress", "networking.k8s.io", "ingresses", true],
  ["IngressClass", "networking.k8s.io", "ingressclasses", false],
  ["NetworkPolicy", "networking.k8s.io", "networkpolicies", true],
  ["IPAddress", "networking.k8s.io", "ipaddresses", false],
  ["ServiceCIDR", "networking.k8s.io", "servicecidrs", false],
  ["EndpointSlice", "discovery.k8s.io", "endpointslices", true],
  ["RuntimeClass", "node.k8s.io", "runtimeclasses", false],
  ["PriorityClass", "scheduling.k8s.io", "priorityclasses", false],
  ["Lease", "coordination.k8s.io", "leases", true],
  ["ClusterRole", "rbac.authorization.k8s.io", "clusterroles", false],
  ["ClusterRoleBinding", "rbac.authorization.k8s.io", "clusterrolebindings", false],
  ["Role", "rbac.authorization.k8s.io", "roles", true],
  ["RoleBinding", "rbac.authorization.k8s.io", "rolebindings", true],
  ["CertificateSigningRequest", "certificates.k8s.io", "certificatesigningrequests", false],
  ["CSIDriver", "storage.k8s.io", "csidrivers", false],
  ["CSINode", "storage.k8s.io", "csinodes", false],
  ["CSIStorageCapacity", "storage.k8s.io", "csistoragecapacities", true],
  ["StorageClass", "storage.k8s.io", "storageclasses", false],
  ["VolumeAttachment", "storage.k8s.io", "volumeattachments", false],
  ["VolumeAttributesClass", "storage.k8s.io", "volumeattributesclasses", false],
  ["MutatingWebhookConfiguration", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", false],
  ["ValidatingWebhookConfiguration", "admissionregistration.k8s.io", "validatingwebhookconfigurations", false],
  ["ValidatingAdmissionPolicy", "admissionregistration.k8s.io", "validatingadmissionpolicies", false],
  ["ValidatingAdmissionPolicyBinding", "admissionregistration.k8s.io", "validatingadmissionpolicybindings", false],
  ["MutatingAdmissionPolicy", "admissionregistration.k8s.io", "mutatingadmissionpolicies", false],
  ["MutatingAdmissionPolicyBinding", "admissionregistration.k8s.io", "mutatingadmissionpolicybindings", false],
  ["CustomResourceDefinition", "apiextensions.k8s.io", "customresourcedefinitions", false],
  ["APIService", "apiregistration.k8s.io", "apiservices", false],
  ["FlowSchema", "flowcontrol.apiserver.k8s.io", "flowschemas", false],
  ["PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", false],
  ["DeviceClass", "resource.k8s.io", "deviceclasses", false],
  ["ResourceClaim", "resource.k8s.io", "resourceclaims", true],
  ["ResourceClaimTemplate", "resource.k8s.io", "resourceclaimtemplates", true],
  ["ResourceSlice", "resource.k8s.io", "resourceslices", false],
  // Bylaw's and Kyverno's own kinds (deploy/crds), so that policies about policies narrow too.
  ["ClusterPolicy", "kyverno.io", "clusterpolicies", false],
  ["Policy", "kyverno.io", "policies", true],
  ["PolicyException", "kyverno.io", "policyexceptions", true],
];

const BY_KIND: ReadonlyMap<string, BuiltInKind> = new Map(
  ROWS.map(([kind, group, resource, namespaced]) => [kind, { group, resource, namespaced }]),
);

/** The built-in kind of this name, or undefined (a custom resource, or a name with wildcards). */
export function builtInKind(kind: string): BuiltInKind | undefined {
  return BY_KIND.get(kind);
}

const BY_RESOURCE: ReadonlyMap<string, string> = new Map(
  ROWS.map(([kind, group, resource]) => [`${group}|${resource}`, kind]),
);

/** The built-in kind served as `resource` (a plural) in `group`, or undefined. */
export function builtInKindOfResource(group: string, resource: string): string | undefined {
  return BY_RESOURCE.get(`${group}|${resource}`);
}

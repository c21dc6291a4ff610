/**
 * Kind → resource (plural), as the API server's discovery names the built-in kinds. A
 * ValidatingPolicy's `matchConstraints.resourceRules` name resources, a request carries a kind:
 * offline there is no discovery, so Bylaw knows the built-in ones and says so for any other kind
 * (validating-policy/match-constraints.ts), rather than guessing a plural.
 */
const BUILT_IN: Readonly<Record<string, string>> = {
  // core/v1
  Binding: "bindings",
  ComponentStatus: "componentstatuses",
  ConfigMap: "configmaps",
  Endpoints: "endpoints",
  Event: "events",
  LimitRange: "limitranges",
  Namespace: "namespaces",
  Node: "nodes",
  PersistentVolume: "persistentvolumes",
  PersistentVolumeClaim: "persistentvolumeclaims",
  Pod: "pods",
  PodTemplate: "podtemplates",
  ReplicationController: "replicationcontrollers",
  ResourceQuota: "resourcequotas",
  Secret: "secrets",
  Service: "services",
  ServiceAccount: "serviceaccounts",
  // apps, batch, autoscaling, policy
  ControllerRevision: "controllerrevisions",
  DaemonSet: "daemonsets",
  Deployment: "deployments",
  ReplicaSet: "replicasets",
  StatefulSet: "statefulsets",
  CronJob: "cronjobs",
  Job: "jobs",
  HorizontalPodAutoscaler: "horizontalpodautoscalers",
  PodDisruptionBudget: "poddisruptionbudgets",
  PodSecurityPolicy: "podsecuritypolicies",
  // networking, discovery, node, scheduling, coordination
  Ingress: "ingresses",
  IngressClass: "ingressclasses",
  NetworkPolicy: "networkpolicies",
  IPAddress: "ipaddresses",
  ServiceCIDR: "servicecidrs",
  EndpointSlice: "endpointslices",
  RuntimeClass: "runtimeclasses",
  PriorityClass: "priorityclasses",
  Lease: "leases",
  // rbac, certificates, authentication/authorization
  ClusterRole: "clusterroles",
  ClusterRoleBinding: "clusterrolebindings",
  Role: "roles",
  RoleBinding: "rolebindings",
  CertificateSigningRequest: "certificatesigningrequests",
  TokenReview: "tokenreviews",
  SubjectAccessReview: "subjectaccessreviews",
  SelfSubjectAccessReview: "selfsubjectaccessreviews",
  LocalSubjectAccessReview: "localsubjectaccessreviews",
  SelfSubjectRulesReview: "selfsubjectrulesreviews",
  // storage
  CSIDriver: "csidrivers",
  CSINode: "csinodes",
  CSIStorageCapacity: "csistoragecapacities",
  StorageClass: "storageclasses",
  VolumeAttachment: "volumeattachments",
  VolumeAttributesClass: "volumeattributesclasses",
  // admission, apiextensions, apiregistration, flowcontrol
  MutatingWebhookConfiguration: "mutatingwebhookconfigurations",
  ValidatingWebhookConfiguration: "validatingwebhookconfigurations",
  ValidatingAdmissionPolicy: "validatingadmissionpolicies",
  ValidatingAdmissionPolicyBinding: "validatingadmissionpolicybindings",
  MutatingAdmissionPolicy: "mutatingadmissionpolicies",
  MutatingAdmissionPolicyBinding: "mutatingadmissionpolicybindings",
  CustomResourceDefinition: "customresourcedefinitions",
  APIService: "apiservices",
  FlowSchema: "flowschemas",
  PriorityLevelConfiguration: "prioritylevelconfigurations",
  // resource.k8s.io
  DeviceClass: "deviceclasses",
  ResourceClaim: "resourceclaims",
  ResourceClaimTemplate: "resourceclaimtemplates",
  ResourceSlice: "resourceslices",
};

/**
 * The resources of the core group ("", `v1`). No CustomResourceDefinition can add to it, so a kind
 * Bylaw does not know in that group (OpenShift's legacy `v1` BuildConfig) is none of these.
 */
export const CORE_RESOURCES: ReadonlySet<string> = new Set([
  "bindings",
  "componentstatuses",
  "configmaps",
  "endpoints",
  "events",
  "limitranges",
  "namespaces",
  "nodes",
  "persistentvolumes",
  "persistentvolumeclaims",
  "pods",
  "podtemplates",
  "replicationcontrollers",
  "resourcequotas",
  "secrets",
  "services",
  "serviceaccounts",
]);

/** The resource (plural) of a built-in kind, or undefined when Bylaw does not know the kind. */
export function resourceOfKind(kind: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(BUILT_IN, kind) ? BUILT_IN[kind] : undefined;
}

/** The built-in kind of a resource (plural), or undefined when Bylaw does not know the resource. */
export function kindOfResource(resource: string): string | undefined {
  for (const [kind, plural] of Object.entries(BUILT_IN)) if (plural === resource) return kind;
  return undefined;
}

/** Built-in kinds whose objects are cluster-scoped (every other built-in kind is namespaced). */
const CLUSTER_SCOPED: ReadonlySet<string> = new Set([
  "ComponentStatus",
  "Namespace",
  "Node",
  "PersistentVolume",
  "PodSecurityPolicy",
  "IngressClass",
  "IPAddress",
  "ServiceCIDR",
  "RuntimeClass",
  "PriorityClass",
  "ClusterRole",
  "ClusterRoleBinding",
  "CertificateSigningRequest",
  "TokenReview",
  "SubjectAccessReview",
  "SelfSubjectAccessReview",
  "SelfSubjectRulesReview",
  "CSIDriver",
  "CSINode",
  "StorageClass",
  "VolumeAttachment",
  "VolumeAttributesClass",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "CustomResourceDefinition",
  "APIService",
  "FlowSchema",
  "PriorityLevelConfiguration",
  "DeviceClass",
  "ResourceSlice",
]);

/** Whether a built-in kind's objects live in namespaces; undefined for a kind Bylaw does not know. */
export function builtInKindNamespaced(kind: string): boolean | undefined {
  if (resourceOfKind(kind) === undefined) return undefined;
  return !CLUSTER_SCOPED.has(kind);
}

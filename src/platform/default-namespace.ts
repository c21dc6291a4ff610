/**
 * A resource file's object without `metadata.namespace` is in `default`, as Kyverno's CLI loads
 * resource files (cmd/cli/kubectl-kyverno/resource YamlToUnstructured) and as the API server places a
 * namespaced object created without one, unless its kind is cluster-scoped: a ClusterRole or a
 * Namespace stays without a namespace, so `request.namespace` is "" for it, as in Kyverno. The
 * cluster-scoped kinds are the ones Kyverno 1.19's CLI knows (its built-in API group resources,
 * matched by API group and kind, any version) and those of the CRDs given (`--crd-paths`, a test's
 * ClusterResource `spec.crds`) with `scope: Cluster`. Kinds Kyverno's CLI does not list
 * (PodSecurityPolicy, MutatingAdmissionPolicy) are put in `default`, as it does.
 */
import { isObject, type JsonObject, parseApiVersion, resourceApiVersion, resourceKind } from "../engine/index.js";

/** API group → the cluster-scoped kinds in it (Kubernetes 1.32, as Kyverno 1.19's CLI lists them). */
const CLUSTER_SCOPED: Readonly<Record<string, readonly string[]>> = {
  "": ["ComponentStatus", "Namespace", "Node", "PersistentVolume"],
  "admissionregistration.k8s.io": [
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
  ],
  "apiextensions.k8s.io": ["CustomResourceDefinition"],
  "apiregistration.k8s.io": ["APIService"],
  "authentication.k8s.io": ["SelfSubjectReview", "TokenReview"],
  "authorization.k8s.io": ["SelfSubjectAccessReview", "SelfSubjectRulesReview", "SubjectAccessReview"],
  "certificates.k8s.io": ["CertificateSigningRequest"],
  "flowcontrol.apiserver.k8s.io": ["FlowSchema", "PriorityLevelConfiguration"],
  "networking.k8s.io": ["IPAddress", "IngressClass", "ServiceCIDR"],
  "node.k8s.io": ["RuntimeClass"],
  "rbac.authorization.k8s.io": ["ClusterRole", "ClusterRoleBinding"],
  "resource.k8s.io": ["DeviceClass", "ResourceSlice"],
  "scheduling.k8s.io": ["PriorityClass"],
  "storage.k8s.io": ["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment", "VolumeAttributesClass"],
};

export interface DefaultNamespaceOptions {
  /** Whether a CRD given (`--crd-paths`) makes the kind, in its API group, cluster-scoped. */
  readonly crdClusterScoped?: (group: string, kind: string) => boolean;
}

function clusterScoped(resource: JsonObject, options: DefaultNamespaceOptions): boolean {
  const group = parseApiVersion(resourceApiVersion(resource)).group;
  const kind = resourceKind(resource);
  if (CLUSTER_SCOPED[group]?.includes(kind) === true) return true;
  return options.crdClusterScoped?.(group, kind) === true;
}

export function inDefaultNamespace(resource: JsonObject, options: DefaultNamespaceOptions = {}): JsonObject {
  const metadata = isObject(resource["metadata"]) ? resource["metadata"] : {};
  if (typeof metadata["namespace"] === "string" && metadata["namespace"] !== "") return resource;
  if (clusterScoped(resource, options)) return resource;
  return { ...resource, metadata: { ...metadata, namespace: "default" } };
}

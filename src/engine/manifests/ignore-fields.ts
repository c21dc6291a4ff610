/**
 * Which differences a manifest check ignores. Kyverno adds, in this order, k8s-manifest-sigstore's
 * default ignore fields, its own (pkg/engine/resources/default-config.yaml), the policy's
 * `ignoreFields`, and the signature annotations of the rule's annotation domain. A binding applies
 * to an object when one of its `objects` patterns matches (none: every object); its field keys are
 * then matched against each difference's dotted key as k8s-manifest-sigstore does: `*` is any run of
 * characters, the key may continue after the field, and the field may sit anywhere in the key.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { Difference } from "./flat-diff.js";
import type { FieldBinding, ObjectPattern } from "./types.js";

const EVERY = [{ kind: "*" }];

/** k8s-manifest-sigstore's defaults (pkg/k8smanifest/resources/default-config.yaml). */
const SIGSTORE_DEFAULTS: readonly FieldBinding[] = [
  {
    fields: ["resourceBundleRef", "signature", "message", "certificate", "bundle"].map(
      (k) => `metadata.annotations.cosign.sigstore.dev/${k}`,
    ),
    objects: EVERY,
  },
  {
    fields: [
      "metadata.managedFields.*",
      "metadata.resourceVersion",
      "metadata.selfLink",
      "metadata.annotations.kubectl.kubernetes.io/last-applied-configuration",
      "metadata.annotations.namespace",
      "metadata.creationTimestamp",
      "metadata.generation",
      "metadata.uid",
      "metadata.finalizers",
      "metadata.labels.app.kubernetes.io/instance",
      "status",
    ],
    objects: EVERY,
  },
  { fields: ["secrets.*.name", "imagePullSecrets.*.name"], objects: [{ kind: "ServiceAccount" }] },
  { fields: ["spec.ports.*.nodePort", "spec.clusterIP", "spec.clusterIPs.0"], objects: [{ kind: "Service" }] },
  { fields: ["metadata.annotations.deployment.kubernetes.io/revision"], objects: [{ kind: "Deployment" }] },
  { fields: ["metadata.annotations.deprecated.daemonset.template.generation"], objects: [{ kind: "DaemonSet" }] },
  { fields: ["spec.host"], objects: [{ kind: "Route", group: "route.openshift.io" }] },
];

/** Kyverno's defaults (pkg/engine/resources/default-config.yaml). */
const KYVERNO_DEFAULTS: readonly FieldBinding[] = [
  {
    fields: [
      "metadata.namespace",
      "spec.containers.*.imagePullPolicy",
      "spec.containers.*.terminationMessagePath",
      "spec.containers.*.terminationMessagePolicy",
      "spec.dnsPolicy",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.terminationGracePeriodSeconds",
      "metadata.labels.app.kubernetes.io/instance",
      "metadata.managedFields.*",
      "metadata.resourceVersion",
      "metadata.selfLink",
      "metadata.annotations.control-plane.alpha.kubernetes.io/leader",
      "metadata.annotations.kubectl.kubernetes.io/last-applied-configuration",
      "metadata.finalizers*",
      "metadata.annotations.namespace",
      "metadata.annotations.deprecated.daemonset.template.generation",
      "metadata.creationTimestamp",
      "metadata.uid",
      "metadata.generation",
      "status",
      "metadata.annotations.deployment.kubernetes.io/revision",
    ],
    objects: EVERY,
  },
  {
    fields: [
      "spec.volumes.*.name",
      "spec.volumes.*.projected.*",
      "spec.volumes.*.configMap.defaultMode",
      "spec.containers.*.volumeMounts.*",
      "spec.tolerations.*",
      "spec.enableServiceLinks",
      "spec.preemptionPolicy",
      "spec.priority",
      "spec.serviceAccount",
    ],
    objects: [{ kind: "Pod" }],
  },
  {
    fields: [
      "spec.progressDeadlineSeconds",
      "spec.revisionHistoryLimit",
      "spec.strategy.*",
      "spec.template.metadata.creationTimestamp",
      "spec.containers.*.ports.*.protocol",
      "spec.containers.*.resources",
      "spec.securityContext",
    ],
    objects: [{ kind: "Deployment" }],
  },
  { fields: ["spec.conversion.strategy", "spec.names.listKind"], objects: [{ kind: "CustomResourceDefinition" }] },
  {
    fields: [
      "spec.ports.*.nodePort",
      "spec.clusterIP",
      "spec.clusterIPs.0",
      "spec.sessionAffinity",
      "spec.type",
      "spec.ipFamilies.*",
      "spec.ipFamilyPolicy",
      "spec.internalTrafficPolicy",
    ],
    objects: [{ kind: "Service" }],
  },
  {
    fields: [
      "metadata.annotations.pod-policies.kyverno.io/autogen-controllers",
      "spec.failurePolicy",
      "spec.background",
      "spec.validationFailureAction",
    ],
    objects: [{ kind: "ClusterPolicy" }, { kind: "Policy" }],
  },
  { fields: ["secrets.*.name", "imagePullSecrets.*.name"], objects: [{ kind: "ServiceAccount" }] },
];

/** The signature annotations of `domain` (message, signature_N, certificate_N, bundle_N, resourceBundleRef). */
function annotationBinding(domain: string): FieldBinding {
  return {
    fields: ["message", "signature", "certificate", "bundle", "resourceBundleRef"].map(
      (k) => `metadata.annotations.${domain}/${k}*`,
    ),
    objects: EVERY,
  };
}

/** The field keys that apply to `object`, from every binding in Kyverno's order. */
export function ignoredFieldsFor(object: JsonValue, policy: readonly FieldBinding[], domain: string): string[] {
  const ref = objectReference(object);
  const bindings = [...SIGSTORE_DEFAULTS, ...KYVERNO_DEFAULTS, ...policy, annotationBinding(domain)];
  return bindings
    .filter((b) => b.objects.length === 0 || b.objects.some((p) => objectMatches(p, ref)))
    .flatMap((b) => b.fields);
}

interface ObjectReference {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

function objectReference(object: JsonValue): ObjectReference {
  const o = isObject(object) ? object : {};
  const meta = isObject(o["metadata"]) ? o["metadata"] : {};
  const apiVersion = typeof o["apiVersion"] === "string" ? o["apiVersion"] : "";
  const slash = apiVersion.lastIndexOf("/");
  const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
  return {
    group: slash < 0 ? "" : apiVersion.slice(0, slash),
    version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
    kind: str(o["kind"]),
    name: str(meta["name"]),
    namespace: str(meta["namespace"]),
  };
}

function objectMatches(p: ObjectPattern, r: ObjectReference): boolean {
  return (
    matchPattern(p.group, r.group) &&
    matchPattern(p.version, r.version) &&
    matchPattern(p.kind, r.kind) &&
    matchPattern(p.name, r.name) &&
    matchPattern(p.namespace, r.namespace)
  );
}

/** k8s-manifest-sigstore's `MatchPattern`: empty or `*` match all, `x*` is a prefix, `a,b` a list. */
function matchPattern(pattern: string | undefined, value: string): boolean {
  const p = (pattern ?? "").trim();
  if (p === "" || p === "*") return true;
  if (p === "-" && value === "") return true;
  if (p.endsWith("*")) return value.startsWith(p.replace(/\*+$/, ""));
  if (p === value) return true;
  if (p.includes(",")) return p.split(",").some((q) => matchPattern(q.trim(), value));
  return false;
}

/** A field key as a pattern over difference keys: `*` any run of characters, open-ended, found anywhere. */
export function fieldPattern(field: string): RegExp | undefined {
  try {
    return new RegExp(`${field}*`.replaceAll("*", ".*"));
  } catch {
    return undefined;
  }
}

/** The differences none of `fields` covers. */
export function withoutIgnored(items: readonly Difference[], fields: readonly string[]): Difference[] {
  const patterns = fields.map(fieldPattern).filter((p): p is RegExp => p !== undefined);
  return items.filter((d) => !patterns.some((p) => p.test(d.key)));
}

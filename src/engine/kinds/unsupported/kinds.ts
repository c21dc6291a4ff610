/**
 * The kinds Bylaw recognises but does not run yet (ADR 0005 §4): a policy of one compiles, after its
 * schema check where Bylaw holds the CRD, to a placeholder whose every result is an error naming the
 * kind (policy/unsupported-kind.ts), never a pass. MutatingPolicy and ImageValidatingPolicy act in
 * admission: the webhook serves them as errors for what their matchConstraints match.
 */
import { CEL_POLICY_GROUP, descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor, PolicyKindName, PolicyPhase } from "../types.js";

const NOT_RUN = "Bylaw does not evaluate this kind yet";

function celKind(
  kind: PolicyKindName,
  shortName: string,
  phases: readonly PolicyPhase[],
  admission: "error" | "none",
): PolicyKindDescriptor {
  return descriptor({
    kind,
    group: CEL_POLICY_GROUP,
    scope: kind.slice(0, "Namespaced".length) === "Namespaced" ? "namespaced" : "cluster",
    language: "unsupported",
    admission,
    notServed: admission === "none" ? NOT_RUN : undefined,
    status: "cel",
    shortName,
    phases,
  });
}

export const UNSUPPORTED_KINDS: readonly PolicyKindDescriptor[] = [
  celKind("ImageValidatingPolicy", "ivpol", ["verifyImages"], "error"),
  celKind("NamespacedImageValidatingPolicy", "nivpol", ["verifyImages"], "error"),
  descriptor({
    kind: "MutatingAdmissionPolicy",
    group: "admissionregistration.k8s.io",
    scope: "cluster",
    language: "unsupported",
    notServed: "the API server runs MutatingAdmissionPolicies itself",
    phases: ["mutate"],
    boundBy: "MutatingAdmissionPolicyBinding",
  }),
  descriptor({
    kind: "CleanupPolicy",
    group: "kyverno.io",
    scope: "namespaced",
    language: "unsupported",
    notServed: "Bylaw has no cleanup controller yet",
    phases: ["delete"],
  }),
  descriptor({
    kind: "ClusterCleanupPolicy",
    group: "kyverno.io",
    scope: "cluster",
    language: "unsupported",
    notServed: "Bylaw has no cleanup controller yet",
    phases: ["delete"],
  }),
];

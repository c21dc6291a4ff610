/**
 * Kubernetes' MutatingAdmissionPolicy (admissionregistration.k8s.io v1alpha1, v1beta1, v1), applied
 * through its bindings (cel/mutating-admission-policy/). The API server runs it in a cluster, so the
 * policy webhook never serves it; `bylaw apply` and `bylaw test` evaluate it as Kyverno's CLI does.
 */
import { celStage, descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor } from "../types.js";

export const MUTATING_ADMISSION_POLICY: PolicyKindDescriptor = descriptor({
  kind: "MutatingAdmissionPolicy",
  reportSource: "MutatingAdmissionPolicy",
  group: "admissionregistration.k8s.io",
  scope: "cluster",
  language: "mutating",
  admission: "none",
  notServed: "the API server runs MutatingAdmissionPolicies itself",
  phases: ["mutate"],
  cliStages: celStage(3),
  boundBy: "MutatingAdmissionPolicyBinding",
});

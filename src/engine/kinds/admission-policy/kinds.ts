/**
 * Kubernetes' ValidatingAdmissionPolicy (admissionregistration.k8s.io), applied through its bindings
 * (cel/admission-policy/). The API server runs it in a cluster, so the policy webhook never serves it;
 * `bylaw apply` and `bylaw test` evaluate it as Kyverno's CLI does.
 */
import { celStage, descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor } from "../types.js";

export const VALIDATING_ADMISSION_POLICY: PolicyKindDescriptor = descriptor({
  kind: "ValidatingAdmissionPolicy",
  reportSource: "ValidatingAdmissionPolicy",
  group: "admissionregistration.k8s.io",
  scope: "cluster",
  language: "cel",
  admission: "none",
  notServed: "the API server runs ValidatingAdmissionPolicies itself",
  phases: ["validate"],
  cliStages: { ...celStage(5), listedLast: true },
  boundBy: "ValidatingAdmissionPolicyBinding",
});

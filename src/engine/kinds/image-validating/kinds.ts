/** policies.kyverno.io ImageValidatingPolicy and NamespacedImageValidatingPolicy: CEL image verification (this folder). */
import { apartStage, CEL_POLICY_GROUP, descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor } from "../types.js";

export const IMAGE_VALIDATING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "ImageValidatingPolicy",
  reportSource: "KyvernoImageValidatingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "cluster",
  language: "image-validating",
  status: "cel",
  shortName: "ivpol",
  phases: ["validate", "verifyImages"],
  cliStages: apartStage(0),
});

export const NAMESPACED_IMAGE_VALIDATING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "NamespacedImageValidatingPolicy",
  reportSource: "KyvernoImageValidatingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "namespaced",
  language: "image-validating",
  status: "cel",
  shortName: "nivpol",
  phases: ["validate", "verifyImages"],
  cliStages: apartStage(0),
});

/** The versions of the CRDs an ImageValidatingPolicy is compiled at; another version is not run. */
export const IMAGE_VALIDATING_POLICY_VERSIONS: ReadonlySet<string> = new Set([
  "policies.kyverno.io/v1alpha1",
  "policies.kyverno.io/v1beta1",
  "policies.kyverno.io/v1",
]);

/** policies.kyverno.io ValidatingPolicy and NamespacedValidatingPolicy: CEL validations (cel/validating-policy/). */
import { CEL_POLICY_GROUP, celStage, descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor } from "../types.js";

export const VALIDATING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "ValidatingPolicy",
  reportSource: "KyvernoValidatingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "cluster",
  language: "cel",
  status: "cel",
  shortName: "vpol",
  phases: ["validate"],
  cliStages: celStage(6),
});

export const NAMESPACED_VALIDATING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "NamespacedValidatingPolicy",
  reportSource: "KyvernoValidatingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "namespaced",
  language: "cel",
  status: "cel",
  shortName: "nvpol",
  phases: ["validate"],
  cliStages: celStage(6),
});

/** The versions of the policies.kyverno.io CRDs a ValidatingPolicy is compiled at; another version is not run. */
export const VALIDATING_POLICY_VERSIONS: ReadonlySet<string> = new Set([
  "policies.kyverno.io/v1alpha1",
  "policies.kyverno.io/v1beta1",
  "policies.kyverno.io/v1",
]);

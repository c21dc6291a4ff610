/** policies.kyverno.io MutatingPolicy and NamespacedMutatingPolicy: CEL mutations (cel/mutating-policy/). */
import { CEL_POLICY_GROUP, celStage, descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor } from "../types.js";

export const MUTATING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "MutatingPolicy",
  reportSource: "KyvernoMutatingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "cluster",
  language: "mutating",
  status: "cel",
  shortName: "mpol",
  phases: ["mutate"],
  cliStages: { ...celStage(4), mutateAsBatch: true, countedTwice: true },
});

export const NAMESPACED_MUTATING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "NamespacedMutatingPolicy",
  reportSource: "KyvernoMutatingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "namespaced",
  language: "mutating",
  status: "cel",
  shortName: "nmpol",
  phases: ["mutate"],
  cliStages: { ...celStage(4), mutateAsBatch: true, countedTwice: true },
});

/** The versions of the policies.kyverno.io CRDs a MutatingPolicy is compiled at; another version is not run. */
export const MUTATING_POLICY_VERSIONS: ReadonlySet<string> = new Set([
  "policies.kyverno.io/v1alpha1",
  "policies.kyverno.io/v1beta1",
  "policies.kyverno.io/v1",
]);

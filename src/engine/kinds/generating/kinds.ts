/**
 * policies.kyverno.io GeneratingPolicy and NamespacedGeneratingPolicy: CEL `generator.Apply`
 * expressions (cel/generating-policy/) that say what to create for a trigger. Offline `bylaw test`
 * and `bylaw apply` show what would be generated; in a cluster an allowed review
 * that matches one becomes an UpdateRequest the background component's generate controller runs.
 */
import { CEL_POLICY_GROUP, celStage, descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor } from "../types.js";

export const GENERATING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "GeneratingPolicy",
  reportSource: "KyvernoGeneratingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "cluster",
  language: "generating",
  status: "cel",
  shortName: "gpol",
  phases: ["generate"],
  cliStages: celStage(7),
  admission: "none",
});

export const NAMESPACED_GENERATING_POLICY: PolicyKindDescriptor = descriptor({
  kind: "NamespacedGeneratingPolicy",
  reportSource: "KyvernoGeneratingPolicy",
  group: CEL_POLICY_GROUP,
  scope: "namespaced",
  language: "generating",
  status: "cel",
  shortName: "ngpol",
  phases: ["generate"],
  cliStages: celStage(7),
  admission: "none",
});

/** The versions of the GeneratingPolicy CRDs Bylaw compiles; another version is not run. */
export const GENERATING_POLICY_VERSIONS: ReadonlySet<string> = new Set([
  "policies.kyverno.io/v1alpha1",
  "policies.kyverno.io/v1beta1",
  "policies.kyverno.io/v1",
]);

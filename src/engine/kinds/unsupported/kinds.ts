/**
 * The kinds Bylaw recognises but does not run yet (ADR 0005 §4): a policy of one compiles, after its
 * schema check where Bylaw holds the CRD, to a placeholder whose every result is an error naming the
 * kind (policy/unsupported-kind.ts), never a pass.
 */
import { descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor } from "../types.js";

export const UNSUPPORTED_KINDS: readonly PolicyKindDescriptor[] = [
  descriptor({
    kind: "CleanupPolicy",
    reportSource: "kyverno",
    group: "kyverno.io",
    scope: "namespaced",
    language: "unsupported",
    notServed: "Bylaw has no cleanup controller yet",
    phases: ["delete"],
  }),
  descriptor({
    kind: "ClusterCleanupPolicy",
    reportSource: "kyverno",
    group: "kyverno.io",
    scope: "cluster",
    language: "unsupported",
    notServed: "Bylaw has no cleanup controller yet",
    phases: ["delete"],
  }),
];

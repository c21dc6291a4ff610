/** kyverno.io ClusterPolicy and Policy: rules in JMESPath and Kyverno's pattern language (policy/, pipeline/). */
import { descriptor } from "../descriptor.js";
import type { PolicyKindDescriptor } from "../types.js";

const phases = ["validate", "mutate", "generate", "verifyImages"] as const;

export const CLUSTER_POLICY: PolicyKindDescriptor = descriptor({
  kind: "ClusterPolicy",
  reportSource: "kyverno",
  group: "kyverno.io",
  scope: "cluster",
  language: "kyverno",
  status: "kyverno",
  phases,
});

export const NAMESPACED_POLICY: PolicyKindDescriptor = descriptor({
  kind: "Policy",
  reportSource: "kyverno",
  group: "kyverno.io",
  scope: "namespaced",
  language: "kyverno",
  status: "kyverno",
  phases,
});

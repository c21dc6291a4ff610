/** Builders shared by the autogen tests. */
import type { PolicyDocument } from "../../src/engine/index.js";

export const TEMPLATE_KINDS = [
  "apps/v1/DaemonSet",
  "apps/v1/Deployment",
  "batch/v1/Job",
  "apps/v1/ReplicaSet",
  "v1/ReplicationController",
  "apps/v1/StatefulSet",
];

export function policyOf(rules: readonly object[], annotations?: Record<string, string>): PolicyDocument {
  const doc = {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: annotations === undefined ? { name: "p" } : { name: "p", annotations },
    spec: { rules },
  };
  return doc as unknown as PolicyDocument;
}

export function podRule(name: string, extra: object = {}): object {
  return {
    name,
    match: { any: [{ resources: { kinds: ["Pod"] } }] },
    validate: { message: "no latest", pattern: { spec: { containers: [{ image: "!*:latest" }] } } },
    ...extra,
  };
}

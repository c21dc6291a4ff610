/** Small builders for policies and resources in tests. */
import type { JsonObject, JsonValue } from "../../src/engine/index.js";

export function clusterPolicy(
  name: string,
  rules: JsonObject[],
  spec: JsonObject = {},
  annotations?: Record<string, string>,
): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: { ...spec, rules },
  };
}

export function podRule(name: string, validate: JsonObject, extra: JsonObject = {}): JsonObject {
  return { name, match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate, ...extra };
}

export function pod(
  name: string,
  spec: { labels?: Record<string, string>; namespace?: string; containers?: JsonValue[] } = {},
): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: spec.namespace ?? "default", ...(spec.labels ? { labels: spec.labels } : {}) },
    spec: { containers: spec.containers ?? [{ name: "app", image: "nginx:1.27" }] },
  };
}

export function deployment(
  name: string,
  podLabels: Record<string, string> = {},
  containers: JsonValue[] = [{ name: "app", image: "nginx:1.27" }],
): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default" },
    spec: { replicas: 1, template: { metadata: { labels: podLabels }, spec: { containers } } },
  };
}

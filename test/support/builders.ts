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

export interface PodOptions {
  /** metadata.name (default "web"). */
  readonly name?: string;
  /** metadata.namespace (default "default"); null leaves it out, as for a Pod not yet placed. */
  readonly namespace?: string | null;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  /** Further metadata fields, merged last. */
  readonly metadata?: JsonObject;
  /** The containers (default: one named `app`, running `image`). */
  readonly containers?: JsonValue[];
  /** The image of the default container (default "nginx:1.27"). */
  readonly image?: string;
  /** The Pod-level securityContext. */
  readonly securityContext?: JsonObject;
  /** Further spec fields, merged last (a `containers` here replaces the one above). */
  readonly spec?: JsonObject;
}

/** The one Pod builder of the tests: a Pod with one nginx container unless told otherwise. */
export function pod(options: PodOptions = {}): JsonObject {
  const namespace = options.namespace === undefined ? "default" : options.namespace;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: options.name ?? "web",
      ...(namespace === null ? {} : { namespace }),
      ...(options.labels ? { labels: options.labels } : {}),
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...options.metadata,
    },
    spec: {
      containers: options.containers ?? [{ name: "app", image: options.image ?? "nginx:1.27" }],
      ...(options.securityContext ? { securityContext: options.securityContext } : {}),
      ...options.spec,
    },
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

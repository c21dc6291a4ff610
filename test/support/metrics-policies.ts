/** Policies for the metrics tests: compile one, wrap a snapshot, and small validate/mutate/generate policies. */
import { type CompiledPolicy, createEngine, type JsonObject } from "../../src/engine/index.js";
import { clusterPolicy } from "./builders.js";
import { fakePorts } from "./fake-ports.js";
import type { PolicySnapshot } from "../../src/server/types.js";

const engine = createEngine(fakePorts());

export function compiled(doc: JsonObject): CompiledPolicy {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(`invalid test policy: ${r.problems.map((p) => p.message).join("; ")}`);
  return r.policy;
}

export function snapshot(policies: readonly CompiledPolicy[], generation = 1): PolicySnapshot {
  return { policies, generation, loadedAt: 0 };
}

export function validatePolicy(
  name: string,
  spec: JsonObject = {},
  kinds: string[] = ["Pod"],
  namespace?: string,
): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: namespace === undefined ? "ClusterPolicy" : "Policy",
    metadata: namespace === undefined ? { name } : { name, namespace },
    spec: {
      ...spec,
      rules: [
        {
          name: "check",
          match: { any: [{ resources: { kinds } }] },
          validate: { message: "m", pattern: { metadata: { labels: { app: "?*" } } } },
        },
      ],
    },
  };
}

export function mutatePolicy(name: string): JsonObject {
  return clusterPolicy(name, [
    {
      name: "add",
      match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
      mutate: { patchStrategicMerge: { metadata: { labels: { x: "y" } } } },
    },
  ]);
}

export function generatePolicy(name: string): JsonObject {
  return clusterPolicy(name, [
    {
      name: "gen",
      match: { any: [{ resources: { kinds: ["Namespace"] } }] },
      generate: {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "c",
        namespace: "{{request.object.metadata.name}}",
        data: { data: { a: "b" } },
      },
    },
  ]);
}

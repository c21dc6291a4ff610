/** Helpers for the metrics tests: compile a policy, wrap a snapshot, read exposition text. */
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import type { PolicySnapshot } from "../types.js";

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
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      rules: [
        {
          name: "add",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { x: "y" } } } },
        },
      ],
    },
  };
}

export function generatePolicy(name: string): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      rules: [
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
      ],
    },
  };
}

export interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses Prometheus text exposition samples (enough for our own output: no escapes in values). */
export function parseExposition(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g))
      labels[pair[1] as string] = pair[2] as string;
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

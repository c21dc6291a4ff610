/** Realistic resources for the strategic merge tests, and a deep freeze that proves inputs stay untouched. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../../src/engine/api/json.js";
import { pod } from "./builders.js";
import { strategicMergeResource } from "../../src/engine/mutate/strategic/index.js";

export function deepFreeze<T extends JsonValue>(v: T): T {
  if (typeof v === "object" && v !== null) {
    for (const child of Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}

/** A frozen Pod named `web` with `spec` (which gives the containers). */
export function frozenPod(spec: JsonObject, metadata: JsonObject = {}): JsonObject {
  return deepFreeze(pod({ name: "web", spec, metadata }));
}

export function deployment(podSpec: JsonObject): JsonObject {
  return deepFreeze({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: { metadata: { labels: { app: "web" } }, spec: podSpec },
    },
  });
}

export const nginx: JsonObject = {
  name: "nginx",
  image: "nginx:1.27",
  args: ["--port", "8080"],
  env: [
    { name: "LOG_LEVEL", value: "info" },
    { name: "MODE", value: "prod" },
  ],
  ports: [{ containerPort: 8080, protocol: "TCP", name: "http" }],
  volumeMounts: [{ name: "cache", mountPath: "/cache" }],
};

export const sidecar: JsonObject = { name: "log-shipper", image: "fluent-bit:3.0" };

/** Reads `obj.a.b.c` (list indexes as numbers) for assertions. */
export function at(obj: JsonValue, ...path: (string | number)[]): JsonValue | undefined {
  let cur: JsonValue | undefined = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = Array.isArray(cur) ? cur[p as number] : cur[p as string];
  }
  return cur;
}

/** One table row: merge `patch` into `resource`, then the value at `path` must be `want`. */
export interface MergeCase {
  readonly name: string;
  readonly resource: JsonObject;
  readonly patch: JsonObject;
  readonly path: (string | number)[];
  /** The value at `path`; undefined means the key is gone. */
  readonly want: JsonValue | undefined;
}

/** Registers one test per case; `noDirectivesLeft` also checks that no `$…` key reached the result. */
export function runMergeCases(cases: readonly MergeCase[], options: { noDirectivesLeft?: boolean } = {}): void {
  for (const c of cases) {
    test(c.name, () => {
      const merged = strategicMergeResource(c.resource, deepFreeze(c.patch));
      assert.ok(merged.ok, merged.ok ? "" : merged.error.message);
      assert.deepEqual(at(merged.value, ...c.path), c.want);
      if (options.noDirectivesLeft === true)
        assert.ok(!JSON.stringify(merged.value).includes('"$'), "no directive is left in the result");
    });
  }
}

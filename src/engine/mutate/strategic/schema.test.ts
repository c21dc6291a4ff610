import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fieldSchema, listMergeKey, schemaForKind } from "./index.js";
import type { SchemaNode } from "./index.js";

/** Follows map fields (`spec`, `template`, ...) from a kind's root. */
function walk(node: SchemaNode | undefined, ...fields: string[]): SchemaNode | undefined {
  let cur = node;
  for (const f of fields) {
    const fs = fieldSchema(cur, f);
    cur = fs?.node ?? fs?.list?.items;
  }
  return cur;
}

describe("patch schema facts", () => {
  const pod = schemaForKind("v1", "Pod");
  const podSpec = walk(pod, "spec");
  const deploymentPodSpec = walk(schemaForKind("apps/v1", "Deployment"), "spec", "template", "spec");
  const container = walk(deploymentPodSpec, "containers");

  test("built-in kinds resolve by apiVersion and kind; others do not", () => {
    assert.equal(pod?.name, "io.k8s.api.core.v1.Pod");
    assert.equal(schemaForKind("apps/v1", "Deployment")?.name, "io.k8s.api.apps.v1.Deployment");
    assert.equal(schemaForKind("batch/v1", "CronJob")?.name, "io.k8s.api.batch.v1.CronJob");
    assert.equal(schemaForKind("v1", "Deployment"), undefined);
    assert.equal(schemaForKind("example.com/v1", "Widget"), undefined);
    assert.equal(schemaForKind("v1", "__proto__"), undefined);
  });

  test("Pod spec.containers merges by name", () => {
    assert.equal(podSpec?.name, "io.k8s.api.core.v1.PodSpec");
    assert.equal(listMergeKey(podSpec, "containers"), "name");
    assert.equal(fieldSchema(podSpec, "containers")?.list?.merge, true);
  });

  test("Pod spec.volumes is merge,retainKeys by name", () => {
    const volumes = fieldSchema(podSpec, "volumes")?.list;
    assert.equal(volumes?.strategy, "merge,retainKeys");
    assert.equal(volumes?.retainKeys, true);
    assert.equal(volumes?.mergeKey, "name");
  });

  test("Deployment containers: env by name, ports by containerPort (identity containerPort + protocol)", () => {
    assert.equal(container?.name, "io.k8s.api.core.v1.Container");
    assert.equal(listMergeKey(container, "env"), "name");
    assert.equal(listMergeKey(container, "ports"), "containerPort");
    assert.deepEqual(fieldSchema(container, "ports")?.list?.keys, ["containerPort", "protocol"]);
    assert.equal(listMergeKey(container, "volumeMounts"), "mountPath");
  });

  test("tolerations, args and command have no merge strategy (they replace)", () => {
    for (const [node, field] of [
      [deploymentPodSpec, "tolerations"],
      [container, "args"],
      [container, "command"],
    ] as const) {
      assert.equal(listMergeKey(node, field), undefined, field);
      assert.notEqual(fieldSchema(node, field)?.list?.merge, true, field);
    }
  });

  test("metadata.finalizers is a merge set of scalars", () => {
    const finalizers = fieldSchema(walk(pod, "metadata"), "finalizers")?.list;
    assert.equal(finalizers?.strategy, "merge");
    assert.equal(finalizers?.merge, true);
    assert.deepEqual(finalizers?.keys, []);
    assert.equal(finalizers?.mergeKey, undefined);
    assert.equal(finalizers?.items, undefined);
  });

  test("Deployment spec.strategy is a retainKeys map", () => {
    const strategy = fieldSchema(walk(schemaForKind("apps/v1", "Deployment"), "spec"), "strategy");
    assert.equal(strategy?.strategy, "retainKeys");
    assert.equal(strategy?.retainKeys, true);
  });

  test("the schema is immutable", () => {
    assert.ok(podSpec !== undefined && Object.isFrozen(podSpec) && Object.isFrozen(podSpec.fields));
    assert.throws(() => {
      (podSpec.fields as Record<string, unknown>)["containers"] = undefined;
    }, TypeError);
    assert.equal(listMergeKey(podSpec, "containers"), "name");
  });
});

/** The repo root: the nearest ancestor holding the generator (works from src, dist and .out). */
function repoRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "tools", "gen-patch-schema.mjs")) && existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

interface Generator {
  renderSchemaModule(metadata: unknown): string;
}

test("schema-data.ts is what tools/gen-patch-schema.mjs generates from the shared metadata", async (t) => {
  const root = repoRoot();
  const input =
    root === undefined ? undefined : resolve(root, "..", "shared", "spec", "kubernetes-openapi", "patch-metadata.json");
  if (root === undefined || input === undefined || !existsSync(input)) {
    t.skip(
      "../shared/spec/kubernetes-openapi/patch-metadata.json is not present: cannot check schema-data.ts is up to date",
    );
    return;
  }
  const generator = (await import(pathToFileURL(join(root, "tools", "gen-patch-schema.mjs")).href)) as Generator;
  const expected = generator.renderSchemaModule(JSON.parse(readFileSync(input, "utf8")));
  const actual = readFileSync(join(root, "src", "engine", "mutate", "strategic", "schema-data.ts"), "utf8");
  assert.ok(actual === expected, "schema-data.ts is stale: run node tools/gen-patch-schema.mjs");
});

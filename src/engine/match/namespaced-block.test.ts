import { test } from "node:test";
import assert from "node:assert/strict";
import type { MatchResources } from "../api/policy.js";
import { clusterKindProblems, namespaceFilterProblems } from "./namespaced-block.js";

const texts = (ps: readonly { path: string; message: string }[]): string[] => ps.map((p) => `${p.path}: ${p.message}`);
const clusterScoped = (kind: string): boolean => ["Namespace", "ClusterRole"].includes(kind.split("/").pop() ?? kind);

test("a namespaces filter is forbidden in the legacy form and in each any/all filter; an empty list is not", () => {
  const block: MatchResources = {
    any: [
      { resources: { kinds: ["Pod"], namespaces: ["a"] } },
      { resources: { kinds: ["Pod"], namespaces: [] } },
      { resources: { kinds: ["Pod"], namespaces: ["b"] } },
    ],
  };
  assert.deepEqual(texts(namespaceFilterProblems(block, "spec.match")), [
    "spec.match.any[0].resources.namespaces: Forbidden: Filtering namespaces not allowed in namespaced policies",
    "spec.match.any[2].resources.namespaces: Forbidden: Filtering namespaces not allowed in namespaced policies",
  ]);
  assert.deepEqual(texts(namespaceFilterProblems({ resources: { kinds: ["Pod"], namespaces: ["a"] } }, "x")), [
    "x.resources.namespaces: Forbidden: Filtering namespaces not allowed in namespaced policies",
  ]);
  assert.deepEqual(namespaceFilterProblems({ resources: { kinds: ["Pod"] } }, "x"), []);
  assert.deepEqual(namespaceFilterProblems(undefined, "x"), []);
});

test("a cluster-wide kind is forbidden at its index, in any form the kinds list takes; namespaced kinds pass", () => {
  const block: MatchResources = {
    all: [{ resources: { kinds: ["ConfigMap", "v1/Namespace"] } }, { resources: { kinds: ["ClusterRole"] } }],
  };
  assert.deepEqual(texts(clusterKindProblems(block, "spec.exclude", clusterScoped)), [
    "spec.exclude.all[0].resources.kinds[1]: Forbidden: Cluster wide resource 'v1/Namespace' not allowed in namespaced policy",
    "spec.exclude.all[1].resources.kinds[0]: Forbidden: Cluster wide resource 'ClusterRole' not allowed in namespaced policy",
  ]);
  assert.deepEqual(clusterKindProblems({ resources: { kinds: ["Pod", "Secret"] } }, "x", clusterScoped), []);
});

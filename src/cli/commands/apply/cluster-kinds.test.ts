import { test } from "node:test";
import assert from "node:assert/strict";
import type { CompiledPolicy, JsonObject } from "../../../engine/index.js";
import { offlineEngine } from "../../offline/offline-engine.js";
import { listed, wantedResources } from "./cluster-kinds.js";

function compile(doc: JsonObject): CompiledPolicy {
  const r = offlineEngine().compile(doc);
  assert.ok(r.ok, JSON.stringify(r));
  return r.policy;
}

const rule = (name: string, match: JsonObject, extra: JsonObject = {}): JsonObject => ({
  name,
  match,
  validate: { message: "m", pattern: { metadata: { labels: { a: "?*" } } } },
  ...extra,
});

test("the match kinds of every rule (any, all, legacy resources, autogen), not the exclude kinds", () => {
  const policy = compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: {
      rules: [
        rule(
          "pods",
          { any: [{ resources: { kinds: ["Pod"] } }] },
          { exclude: { any: [{ resources: { kinds: ["Secret"] } }] } },
        ),
        rule("deploys", { all: [{ resources: { kinds: ["apps/v1/Deployment"] } }] }),
        rule("legacy", { resources: { kinds: ["Service", "Pod"] } }),
      ],
    },
  });
  const wanted = wantedResources([policy]).map((w) =>
    w.by === "kind"
      ? `${w.group}/${w.version}/${w.kind}${w.subresource === "" ? "" : `/${w.subresource}`} (${w.policy})`
      : w.text,
  );
  assert.ok(wanted.includes("*/*/Pod (p)"));
  assert.ok(wanted.includes("apps/v1/Deployment (p)"));
  assert.ok(wanted.includes("*/*/Service (p)"));
  assert.ok(!wanted.some((w) => w.includes("Secret")));
  assert.equal(wanted.filter((w) => w === "*/*/Pod (p)").length, 1, "listed once");
});

test("a Pod policy's autogen rules add the pod controllers", () => {
  const policy = compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "pods" },
    spec: { rules: [rule("pods", { any: [{ resources: { kinds: ["Pod"] } }] })] },
  });
  const kinds = wantedResources([policy]).map((w) => (w.by === "kind" ? w.kind : ""));
  for (const k of ["Pod", "Deployment", "StatefulSet", "CronJob"])
    assert.ok(kinds.includes(k), `${k} in ${kinds.join(", ")}`);
});

test("a namespaced Policy is named with its namespace; subresource selectors keep their subresource", () => {
  const policy = compile({
    apiVersion: "kyverno.io/v1",
    kind: "Policy",
    metadata: { name: "q", namespace: "shop" },
    spec: { rules: [rule("scale", { any: [{ resources: { kinds: ["Deployment/scale"] } }] })] },
  });
  assert.deepEqual(
    wantedResources([policy]).map((w) => [w.text, w.policy, w.by === "kind" ? w.subresource : ""]),
    [["Deployment/scale", "shop/q", "scale"]],
  );
});

test("which served kinds --cluster lists: -n leaves cluster-scoped kinds out, --cluster-wide-resources namespaced ones, both list the two", () => {
  const pods = { namespaced: true };
  const nodes = { namespaced: false };
  const cases: [string | undefined, boolean, boolean, boolean][] = [
    [undefined, false, true, true],
    ["shop", false, true, false],
    [undefined, true, false, true],
    ["shop", true, true, true],
  ];
  for (const [namespace, clusterWide, pod, node] of cases) {
    assert.equal(listed(pods, namespace, clusterWide), pod, `Pods, -n ${namespace}, cluster-wide ${clusterWide}`);
    assert.equal(listed(nodes, namespace, clusterWide), node, `Nodes, -n ${namespace}, cluster-wide ${clusterWide}`);
  }
});

test("a kind Bylaw does not run lists every kind: each resource gets its error", () => {
  const policy = compile({
    apiVersion: "kyverno.io/v2",
    kind: "ClusterCleanupPolicy",
    metadata: { name: "clean" },
    spec: { schedule: "*/5 * * * *", match: { any: [{ resources: { kinds: ["Pod"] } }] } },
  });
  assert.deepEqual(wantedResources([policy]), [
    { by: "kind", group: "*", version: "*", kind: "*", subresource: "", text: "*", policy: "clean" },
  ]);
});

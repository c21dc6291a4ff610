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

/** What a CEL kind's head lists: each resource its matchConstraints name, as group/version/resource. */
function celListed(doc: JsonObject): string[] {
  return wantedResources([compile(doc)]).map((w) =>
    w.by === "resource" ? `${w.text} (${w.policy})` : `kind ${w.text}`,
  );
}

const rulesOn = (group: string, resource: string): JsonObject => ({
  resourceRules: [{ apiGroups: [group], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: [resource] }],
});

test("a ValidatingAdmissionPolicy on Deployments lists Deployments only", () => {
  assert.deepEqual(
    celListed({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "vap" },
      spec: { matchConstraints: rulesOn("apps", "deployments"), validations: [{ expression: "true" }] },
    }),
    ["apps/v1/deployments (vap)"],
  );
});

test("a MutatingPolicy on ConfigMaps lists ConfigMaps", () => {
  assert.deepEqual(
    celListed({
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name: "mpol" },
      spec: {
        matchConstraints: rulesOn("", "configmaps"),
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
      },
    }),
    ["core/v1/configmaps (mpol)"],
  );
});

test("a GeneratingPolicy on Namespaces lists Namespaces", () => {
  assert.deepEqual(
    celListed({
      apiVersion: "policies.kyverno.io/v1",
      kind: "GeneratingPolicy",
      metadata: { name: "gpol" },
      spec: { matchConstraints: rulesOn("", "namespaces"), generate: [{ expression: "true" }] },
    }),
    ["core/v1/namespaces (gpol)"],
  );
});

test("an ImageValidatingPolicy on Pods lists Pods, then its pod controllers' autogen resources", () => {
  const listed = celListed({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ImageValidatingPolicy",
    metadata: { name: "ivpol" },
    spec: { matchConstraints: rulesOn("", "pods"), attestors: [], validations: [{ expression: "true" }] },
  });
  assert.equal(listed[0], "core/v1/pods (ivpol)");
  assert.ok(listed.includes("apps/v1/deployments (ivpol)"), listed.join(", "));
  assert.ok(!listed.some((w) => w.startsWith("kind ")), "no kind selector: not every kind");
});

test("a ValidatingPolicy on Secrets lists Secrets only", () => {
  assert.deepEqual(
    celListed({
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "vpol" },
      spec: { matchConstraints: rulesOn("", "secrets"), validations: [{ expression: "true", message: "m" }] },
    }),
    ["core/v1/secrets (vpol)"],
  );
});

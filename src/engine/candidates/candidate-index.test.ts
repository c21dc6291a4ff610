import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import type { Operation } from "../api/resource.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import { indexPolicies } from "./candidate-index.js";

const engine = createEngine(fakePorts());

function compiled(doc: JsonObject): CompiledPolicy {
  const r = engine.compile(doc);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

const deny = { message: "no", deny: {} };
function clusterPolicy(name: string, match: JsonObject, extra: JsonObject = {}): CompiledPolicy {
  return compiled({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name, ...extra },
    spec: { validationFailureAction: "Enforce", background: false, rules: [{ name: "r", match, validate: deny }] },
  });
}

const pod = (namespace = "default"): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace },
  spec: { containers: [{ name: "c", image: "nginx" }] },
});
const deployment: JsonObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "d", namespace: "default" },
  spec: { template: { spec: { containers: [{ name: "c", image: "nginx" }] } } },
};
const configMap: JsonObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };

const prepared = (resource: JsonObject, operation: Operation = "CREATE", subresource?: string) =>
  engine.prepare({
    resource,
    operation,
    namespaceLabels: {},
    ...(operation === "DELETE" ? { oldResource: resource } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  });

/** The policies the index keeps for the request, by name, and a check that every one left out gives no result. */
function kept(
  policies: readonly CompiledPolicy[],
  resource: JsonObject,
  operation: Operation = "CREATE",
  o: { readonly subresource?: string; readonly patched?: boolean } = {},
): string[] {
  const index = indexPolicies(policies, { patched: o.patched === true });
  const request = prepared(resource, operation, o.subresource);
  const mask = index.candidates(request);
  assert.equal(mask.length, policies.length);
  policies.forEach((p, i) => {
    if (mask[i] === 0)
      assert.deepEqual(engine.validate(p, request).rules, [], `${p.name} was left out but gives a result`);
  });
  return policies.filter((_, i) => mask[i] === 1).map((p) => p.name);
}

test("a review reaches only the policies whose rules name its kind; autogen copies reach the controllers", () => {
  const policies = [
    clusterPolicy("pods", { any: [{ resources: { kinds: ["Pod"] } }] }),
    clusterPolicy("configmaps", { any: [{ resources: { kinds: ["ConfigMap"] } }] }),
    clusterPolicy("any-kind", { any: [{ resources: { kinds: ["*"] } }] }),
  ];
  assert.deepEqual(kept(policies, pod()), ["pods", "any-kind"]);
  assert.deepEqual(kept(policies, configMap), ["configmaps", "any-kind"]);
  // The Pod policy's autogen rules match Deployments: the review reaches it and it gives a result.
  assert.deepEqual(kept(policies, deployment), ["pods", "any-kind"]);
  assert.ok(engine.validate(policies[0] as CompiledPolicy, prepared(deployment)).rules.length > 0);
});

test("operations named in every filter rule a policy out for other operations; a filter without them keeps it", () => {
  const policies = [
    clusterPolicy("create-only", { any: [{ resources: { kinds: ["Pod"], operations: ["CREATE"] } }] }),
    clusterPolicy("create-or-any", {
      any: [{ resources: { kinds: ["Pod"], operations: ["CREATE"] } }, { resources: { kinds: ["Pod"] } }],
    }),
    clusterPolicy("all-delete", {
      all: [{ resources: { kinds: ["Pod"] } }, { resources: { operations: ["DELETE"] } }],
    }),
  ];
  assert.deepEqual(kept(policies, pod(), "CREATE"), ["create-only", "create-or-any"]);
  assert.deepEqual(kept(policies, pod(), "UPDATE"), ["create-or-any"]);
  assert.deepEqual(kept(policies, pod(), "DELETE"), ["create-or-any", "all-delete"]);
});

test("a namespaced Policy reaches only resources of its namespace; other kinds of policy always", () => {
  const namespaced = compiled({
    apiVersion: "kyverno.io/v1",
    kind: "Policy",
    metadata: { name: "team-a", namespace: "team-a" },
    spec: {
      validationFailureAction: "Enforce",
      rules: [{ name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate: deny }],
    },
  });
  const cel = compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "vpol" },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
      },
      validations: [{ expression: "false", message: "no" }],
    },
  });
  const policies = [namespaced, cel];
  assert.deepEqual(kept(policies, pod("team-a")), ["team-a", "vpol"]);
  assert.deepEqual(kept(policies, pod("team-b")), ["vpol"]);
});

test("the same facts give the same mask; a request of no policy's kind reaches none", () => {
  const index = indexPolicies([clusterPolicy("pods", { any: [{ resources: { kinds: ["Pod"] } }] })]);
  assert.equal(index.candidates(prepared(pod())), index.candidates(prepared(pod())));
  assert.deepEqual([...index.candidates(prepared(configMap))], [0]);
});

const named = (name: string, namespace: string, generateName = false): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { ...(generateName ? { generateName: name } : { name }), namespace },
  spec: { containers: [{ name: "c", image: "nginx" }] },
});

test("namespaces patterns written in every filter rule a policy out elsewhere; a Namespace is matched by its name", () => {
  const policies = [
    clusterPolicy("prod", { any: [{ resources: { kinds: ["Pod", "Namespace"], namespaces: ["prod-*"] } }] }),
    clusterPolicy("prod-or-any", {
      any: [{ resources: { kinds: ["Pod"], namespaces: ["prod-*"] } }, { resources: { kinds: ["Pod"] } }],
    }),
    clusterPolicy("all-kube-system", {
      all: [{ resources: { kinds: ["Pod"] } }, { resources: { namespaces: ["kube-system"] } }],
    }),
  ];
  assert.deepEqual(kept(policies, pod("prod-a")), ["prod", "prod-or-any"]);
  assert.deepEqual(kept(policies, pod("dev")), ["prod-or-any"]);
  assert.deepEqual(kept(policies, pod("kube-system")), ["prod-or-any", "all-kube-system"]);
  const namespace = (name: string): JsonObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  assert.deepEqual(kept(policies, namespace("prod-b")), ["prod"]);
  assert.deepEqual(kept(policies, namespace("dev")), []);
  // The policy it keeps does give a result there (the gate is the matcher's own condition).
  assert.ok(engine.validate(policies[0] as CompiledPolicy, prepared(namespace("prod-b"))).rules.length > 0);
});

test("names patterns rule a policy out for other names, by the generateName when there is no name yet", () => {
  const policies = [
    clusterPolicy("web", { any: [{ resources: { kinds: ["Pod"], names: ["web-*"] } }] }),
    clusterPolicy("legacy-name", { resources: { kinds: ["Pod"], name: "db" } }),
    clusterPolicy("web-or-any", {
      any: [{ resources: { kinds: ["Pod"], names: ["web-*"] } }, { resources: { kinds: ["Pod"] } }],
    }),
  ];
  assert.deepEqual(kept(policies, named("web-1", "default")), ["web", "web-or-any"]);
  assert.deepEqual(kept(policies, named("db", "default")), ["legacy-name", "web-or-any"]);
  assert.deepEqual(kept(policies, named("web-", "default", true)), ["web", "web-or-any"]);
  assert.deepEqual(kept(policies, named("api-", "default", true)), ["web-or-any"]);
  // Names change per review under one remembered key: each gets its own answer, the key's mask untouched.
  const index = indexPolicies(policies);
  assert.deepEqual([...index.candidates(prepared(named("api-1", "default")))], [0, 0, 1]);
  assert.deepEqual([...index.candidates(prepared(named("web-2", "default")))], [1, 0, 1]);
  // Where a subject is patched on the way (the mutating webhook), names and namespaces are not ruled on.
  assert.deepEqual(kept(policies, named("api-1", "default"), "CREATE", { patched: true }), [
    "web",
    "legacy-name",
    "web-or-any",
  ]);
});

test("a subresource request reaches the policies whose kinds name that subresource, and any Pod selector its ephemeral containers", () => {
  const policies = [
    clusterPolicy("pods", { any: [{ resources: { kinds: ["Pod"] } }] }),
    clusterPolicy("pod-exec", { any: [{ resources: { kinds: ["Pod/exec"] } }] }),
    clusterPolicy("pod-any-sub", { any: [{ resources: { kinds: ["Pod/*"] } }] }),
    clusterPolicy("apps-pods", { any: [{ resources: { kinds: ["apps/v1/Pod"] } }] }),
  ];
  // `Pod/*` names any subresource, none included; `apps/v1/Pod` is another group's Pod.
  assert.deepEqual(kept(policies, pod()), ["pods", "pod-any-sub"]);
  assert.deepEqual(kept(policies, pod(), "CONNECT", { subresource: "exec" }), ["pod-exec", "pod-any-sub"]);
  assert.deepEqual(kept(policies, pod(), "UPDATE", { subresource: "status" }), ["pod-any-sub"]);
  // Any Pod selector also names pods/ephemeralcontainers (Kyverno's backward-compatibility rule).
  assert.deepEqual(kept(policies, pod(), "UPDATE", { subresource: "ephemeralcontainers" }), [
    "pods",
    "pod-exec",
    "pod-any-sub",
  ]);
  assert.ok(engine.validate(policies[1] as CompiledPolicy, prepared(pod(), "CONNECT", "exec")).rules.length > 0);
});

const labelled = (labels: Record<string, string>): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default", labels },
  spec: { containers: [{ name: "c", image: "nginx" }] },
});

test("a selector's keys rule a policy out for a subject without them; values, NotIn, DoesNotExist and wildcard keys do not", () => {
  const sel = (selector: JsonObject): JsonObject => ({ resources: { kinds: ["Pod"], selector } });
  const policies = [
    clusterPolicy("app-web", { any: [sel({ matchLabels: { app: "web" } })] }),
    clusterPolicy("tier-in", { any: [sel({ matchExpressions: [{ key: "tier", operator: "In", values: ["a"] }] })] }),
    clusterPolicy("team-exists", {
      resources: { kinds: ["Pod"], selector: { matchExpressions: [{ key: "team", operator: "Exists" }] } },
    }),
    clusterPolicy("app-or-tier", { any: [sel({ matchLabels: { app: "*" } }), sel({ matchLabels: { tier: "a" } })] }),
    clusterPolicy("all-app-and-team", {
      all: [sel({ matchLabels: { app: "web" } }), { resources: { selector: { matchLabels: { team: "x" } } } }],
    }),
    clusterPolicy("not-in", { any: [sel({ matchExpressions: [{ key: "app", operator: "NotIn", values: ["web"] }] })] }),
    clusterPolicy("no-team", { any: [sel({ matchExpressions: [{ key: "team", operator: "DoesNotExist" }] })] }),
    clusterPolicy("wildcard-key", { any: [sel({ matchLabels: { "app*": "web" } })] }),
    clusterPolicy("app-or-any", { any: [sel({ matchLabels: { app: "web" } }), { resources: { kinds: ["Pod"] } }] }),
  ];
  const always = ["not-in", "no-team", "wildcard-key", "app-or-any"];
  assert.deepEqual(kept(policies, labelled({})), always);
  // The key is there but the value is not: kept (the selector's own check decides), and it gives no result.
  assert.deepEqual(kept(policies, labelled({ app: "db" })), ["app-web", "app-or-tier", ...always]);
  assert.deepEqual(kept(policies, labelled({ tier: "b" })), ["tier-in", "app-or-tier", ...always]);
  assert.deepEqual(kept(policies, labelled({ team: "x" })), ["team-exists", ...always]);
  assert.deepEqual(kept(policies, labelled({ app: "web", team: "x" })), [
    "app-web",
    "team-exists",
    "app-or-tier",
    "all-app-and-team",
    ...always,
  ]);
  // The policies kept there do give results: the gate is the selector's own condition.
  const request = prepared(labelled({ app: "web", team: "x" }));
  for (const i of [0, 2, 3, 4]) assert.ok(engine.validate(policies[i] as CompiledPolicy, request).rules.length > 0);
  // Labels change per review under one remembered key; a subject patched on the way is not ruled on.
  const index = indexPolicies(policies);
  assert.equal([...index.candidates(prepared(labelled({})))][0], 0);
  assert.equal([...index.candidates(prepared(labelled({ app: "web" })))][0], 1);
  assert.deepEqual(
    kept(policies, labelled({}), "CREATE", { patched: true }),
    policies.map((p) => p.name),
  );
});

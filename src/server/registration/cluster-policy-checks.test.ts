/** The policy webhook's API-server checks: kinds served, background subresources, generate scope and permissions. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject } from "../../engine/index.js";
import type { KindResource, KindSelector } from "../../kube/discovered-kinds.js";
import type { ResourceAccess } from "../../kube/access-review.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, podRule } from "../../../test/support/builders.js";
import { clusterPolicyProblems, type ClusterPolicyChecks } from "./cluster-policy-checks.js";

const engine = createEngine(fakePorts());
const USER = "system:serviceaccount:bylaw:bylaw-background-controller";

/** A tiny discovery: Pod (with pods/status), ConfigMap, Secret namespaced; Namespace cluster-wide. */
const SERVED: readonly (KindResource & { kind: string })[] = [
  { kind: "Pod", group: "", resource: "pods", namespaced: true },
  { kind: "Pod", group: "", resource: "pods/status", namespaced: true },
  { kind: "ConfigMap", group: "", resource: "configmaps", namespaced: true },
  { kind: "Secret", group: "", resource: "secrets", namespaced: true },
  { kind: "Namespace", group: "", resource: "namespaces", namespaced: false },
];

function checks(
  allowed: (a: ResourceAccess) => boolean = () => true,
): ClusterPolicyChecks & { asked: ResourceAccess[] } {
  const asked: ResourceAccess[] = [];
  return {
    asked,
    user: USER,
    refresh: () => Promise.resolve(),
    resolve: (s: KindSelector) =>
      SERVED.filter(
        (r) =>
          r.kind === s.kind &&
          (s.subresource === "" ? !r.resource.includes("/") : r.resource === `pods/${s.subresource}`),
      ),
    canI: (a) => {
      asked.push(a);
      return Promise.resolve(allowed(a));
    },
  };
}

function compiled(doc: JsonObject): CompiledPolicy {
  const out = engine.compile(doc);
  assert.ok(out.ok, out.ok ? "" : JSON.stringify(out.problems));
  return out.policy;
}

async function texts(doc: JsonObject, c = checks()): Promise<string[]> {
  return (await clusterPolicyProblems(compiled(doc), c)).map((p) => `${p.path}: ${p.message}`);
}

const generateRule = (generate: JsonObject, kinds = ["Namespace"]): JsonObject => ({
  name: "gen",
  match: { any: [{ resources: { kinds } }] },
  generate: { synchronize: false, ...generate },
});

describe("kinds against discovery", () => {
  test("a kind the API server does not serve is refused with Kyverno's text", async () => {
    const doc = clusterPolicy("p", [
      { ...podRule("r", { message: "m", pattern: {} }), match: { any: [{ resources: { kinds: ["Pod", "Widget"] } }] } },
    ]);
    assert.deepEqual(await texts(doc), [
      "spec.rules[0].match.any[0].kinds: the kind defined in the all match resource is invalid: unable to convert GVK to GVR for kinds Widget",
    ]);
  });
  test("a validate rule on a subresource needs background: false", async () => {
    const rule = {
      ...podRule("r", { message: "m", pattern: {} }),
      match: { any: [{ resources: { kinds: ["Pod/status"] } }] },
    };
    assert.deepEqual(await texts(clusterPolicy("p", [rule])), [
      "spec.rules[0].match.any[0].kinds: the kind defined in the all match resource is invalid: background scan enabled with subresource Pod/status",
    ]);
    assert.deepEqual(await texts(clusterPolicy("p", [rule], { background: false })), []);
  });
});

describe("generate targets", () => {
  test("a namespaced kind needs a target namespace; a cluster-wide one must not have one", async () => {
    const noNs = generateRule({ apiVersion: "v1", kind: "ConfigMap", name: "c", data: {} });
    assert.deepEqual(await texts(clusterPolicy("p", [noNs])), [
      "spec.rules[0].generate.namespace: Forbidden: target namespace must be set for a namespaced resource",
    ]);
    const nsOnCluster = generateRule({ apiVersion: "v1", kind: "Namespace", name: "n", namespace: "x", data: {} });
    assert.deepEqual(await texts(clusterPolicy("p", [nsOnCluster])), [
      "spec.rules[0].generate.namespace: Forbidden: target namespace must not be set for a cluster-wide resource",
    ]);
  });
  test("a cloneList that mixes scopes, or has no namespace for namespaced kinds, is refused", async () => {
    const mixed = generateRule({ namespace: "x", cloneList: { kinds: ["v1/Secret", "v1/Namespace"], namespace: "y" } });
    assert.ok(
      (await texts(clusterPolicy("p", [mixed]))).includes(
        "spec.rules[0].generate.cloneList.kinds: Forbidden: mixed scope of target resources is forbidden",
      ),
    );
    const noNs = generateRule({ namespace: "x", cloneList: { kinds: ["v1/Secret"] } });
    assert.deepEqual(await texts(clusterPolicy("p", [noNs])), [
      "spec.rules[0].generate.cloneList.namespace: Forbidden: namespace is required for namespaced target resources",
    ]);
  });
  test("the background controller's permissions: the first verb it lacks is named, as Kyverno names it", async () => {
    const rule = generateRule({ apiVersion: "v1", kind: "Secret", name: "s", namespace: "team", data: {} });
    const c = checks((a) => a.verb !== "update" && a.verb !== "delete");
    assert.deepEqual(await texts(clusterPolicy("p", [rule]), c), [
      `spec.rules[0].generate: ${USER} does not have permissions to 'update' resource v1/Secret//team. Grant proper permissions to the background controller`,
    ]);
    assert.deepEqual(
      c.asked.map((a) => `${a.user} ${a.verb} ${a.group}/${a.resource} in ${a.namespace}`).sort(),
      ["create", "delete", "get", "update"].map((v) => `${USER} ${v} /secrets in team`),
    );
  });
  test("a generate rule the background controller may run is admitted; a kind with a variable is not checked", async () => {
    const rule = generateRule({ apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "team", data: {} });
    assert.deepEqual(await texts(clusterPolicy("p", [rule])), []);
    const c = checks(() => false);
    const variable = generateRule({
      apiVersion: "v1",
      kind: "{{request.object.data.kind}}",
      name: "c",
      namespace: "team",
      data: {},
    });
    assert.deepEqual(await texts(clusterPolicy("p", [variable]), c), []);
    assert.equal(c.asked.length, 0);
  });
  test("generateExisting: the background controller must get and list the rule's trigger kinds (every namespace for a ClusterPolicy), or the policy is refused naming the verb", async () => {
    const target = { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "team", data: {} };
    const existing = generateRule({ ...target, generateExisting: true }, ["Secret"]);
    // Writing ConfigMaps is granted, reading Secrets is not (Kyverno's docs grant only what is written).
    const c = checks((a) => a.resource === "configmaps");
    assert.deepEqual(await texts(clusterPolicy("p", [existing]), c), [
      `spec.rules[0].generate.generateExisting: ${USER} does not have permissions to 'get' resource Secret in every namespace, the existing triggers generateExisting reads. Grant proper permissions to the background controller`,
    ]);
    assert.deepEqual(
      c.asked.filter((a) => a.resource === "secrets").map((a) => `${a.verb} in '${a.namespace}'`),
      ["get in ''", "list in ''"],
    );
    // The deprecated spec.generateExisting is its fallback, as when the controller lists them.
    const fallback = generateRule(target, ["Secret"]);
    assert.equal((await texts(clusterPolicy("p", [fallback], { generateExisting: true }), c)).length, 1);
    // Granted, or without generateExisting, nothing is asked of the trigger kind.
    assert.deepEqual(await texts(clusterPolicy("p", [existing])), []);
    const plain = checks((a) => a.resource === "configmaps");
    assert.deepEqual(await texts(clusterPolicy("p", [generateRule(target, ["Secret"])]), plain), []);
    assert.deepEqual(
      plain.asked.filter((a) => a.resource === "secrets"),
      [],
    );
  });
});

test("generateExisting on a wildcard kind is refused naming the wildcard: it would list none of them", async () => {
  const target = { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "team", data: {} };
  // Kind * itself cannot generate at all (Kyverno's wildcard check, in the engine).
  const star = engine.compile(clusterPolicy("p", [generateRule(target, ["*"])], { background: false }));
  assert.deepEqual(star.ok ? [] : star.problems.map((p) => `${p.path}: ${p.message}`), [
    "spec.rules[0].match.any[0].kinds: wildcard policy does not support rule type",
  ]);
  for (const kind of ["*/Secret", "v1/*"]) {
    const c = checks();
    const existing = generateRule({ ...target, generateExisting: true }, [kind]);
    assert.deepEqual(await texts(clusterPolicy("p", [existing], { background: false }), c), [
      `spec.rules[0].generate.generateExisting: generateExisting cannot list the existing triggers of the wildcard kind ${kind}: name the kinds it should list in match, or set generateExisting to false`,
    ]);
  }
  // Without generateExisting a wildcard asks nothing of the trigger kinds.
  const plain = generateRule(target, ["*/Secret"]);
  assert.deepEqual(await texts(clusterPolicy("p", [plain], { background: false })), []);
});

describe("mutate-existing targets", () => {
  const mutateRule = (target: JsonObject): JsonObject => ({
    name: "touch",
    match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
    mutate: { targets: [target], patchStrategicMerge: { metadata: { labels: { touched: "yes" } } } },
  });
  test("a target the background controller may not get and update names the verbs, as Kyverno's buildMessage does", async () => {
    const c = checks((a) => a.verb === "get");
    assert.deepEqual(
      await texts(
        clusterPolicy("p", [mutateRule({ apiVersion: "v1", kind: "Secret", namespace: "team", name: "s" })]),
        c,
      ),
      [`spec.rules[0].mutate.targets: ${USER} requires permissions update for resource v1/Secret in namespace team`],
    );
    assert.ok(c.asked.every((a) => a.name === "s" && a.namespace === "team" && a.resource === "secrets"));
  });
  test("a target it may write, or one whose kind is a variable, is admitted", async () => {
    const may = clusterPolicy("p", [mutateRule({ apiVersion: "v1", kind: "ConfigMap", namespace: "team" })]);
    assert.deepEqual(await texts(may), []);
    const c = checks(() => false);
    const variable = clusterPolicy("p", [mutateRule({ apiVersion: "v1", kind: "{{request.object.kind}}" })]);
    assert.deepEqual(await texts(variable, c), []);
    assert.equal(c.asked.length, 0);
  });
  test("mutateExistingOnPolicyUpdate: the background controller must also list the rule's triggers, or the policy is refused", async () => {
    const rule = mutateRule({ apiVersion: "v1", kind: "ConfigMap", namespace: "team" });
    const onUpdate = { ...rule, mutate: { ...(rule["mutate"] as JsonObject), mutateExistingOnPolicyUpdate: true } };
    // Targets (ConfigMaps) may be written; the triggers (ConfigMaps too here) may not be listed.
    const c = checks((a) => a.verb !== "list");
    assert.deepEqual(await texts(clusterPolicy("p", [onUpdate]), c), [
      `spec.rules[0].mutate.mutateExistingOnPolicyUpdate: ${USER} does not have permissions to 'list' resource ConfigMap in every namespace, the existing triggers mutateExistingOnPolicyUpdate reads. Grant proper permissions to the background controller`,
    ]);
    // The deprecated spec-level flag is its fallback; without either nothing is listed.
    assert.equal((await texts(clusterPolicy("p", [rule], { mutateExistingOnPolicyUpdate: true }), c)).length, 1);
    assert.deepEqual(await texts(clusterPolicy("p", [rule]), c), []);
  });
});

test("a generate kind the API server does not serve is refused with Kyverno's text", async () => {
  const rule = generateRule({ apiVersion: "example.com/v1", kind: "Widget", name: "w", namespace: "team", data: {} });
  assert.deepEqual(await texts(clusterPolicy("p", [rule])), [
    "spec.rules[0].generate: failed to get GVR for kind example.com/v1/Widget",
  ]);
});

/** A ValidatingPolicy's webhook rules come from its matchConstraints, not every resource. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { RuleSet, withoutCovered } from "./webhook-rules.js";
import { addPolicyRules } from "./webhook-rules.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";

const engine = createEngine(fakePorts());
function vp(matchConstraints: JsonObject, extra: JsonObject = {}, kind = "ValidatingPolicy"): CompiledPolicy {
  const r = engine.compile({
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "p", namespace: "team-a" },
    spec: { matchConstraints, validations: [{ expression: "true" }], ...extra },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}
function flat(policy: CompiledPolicy, webhook: "validate" | "mutate" = "validate"): string[] {
  const set = new RuleSet();
  addPolicyRules(set, policy, webhook);
  return set
    .rules()
    .flatMap((r) =>
      r.resources.map(
        (res) => `${r.apiGroups.join(",")}/${r.apiVersions.join(",")}/${res}@${r.scope}:${r.operations.join(",")}`,
      ),
    )
    .sort();
}
const noAutogen = { autogen: { podControllers: { controllers: [] } } };

describe("registration: ValidatingPolicy rules from matchConstraints", () => {
  test("resourceRules give the groups, versions, resources and operations; nothing on the mutating webhook", () => {
    const p = vp({
      resourceRules: [
        {
          apiGroups: [""],
          apiVersions: ["v1"],
          operations: ["CREATE", "UPDATE"],
          resources: ["configmaps", "secrets"],
        },
      ],
    });
    assert.deepEqual(flat(p), ["/v1/configmaps@*:CREATE,UPDATE", "/v1/secrets@*:CREATE,UPDATE"]);
    assert.deepEqual(flat(p, "mutate"), []);
  });

  test("operations '*' are all four; a NamespacedValidatingPolicy registers Namespaced scope", () => {
    const p = vp(
      { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["configmaps"] }] },
      {},
      "NamespacedValidatingPolicy",
    );
    assert.deepEqual(flat(p), ["/v1/configmaps@Namespaced:CREATE,UPDATE,DELETE,CONNECT"]);
  });

  test("a Pod policy registers its autogen pod controllers too", () => {
    const got = flat(
      vp({ resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] }),
    );
    assert.ok(got.includes("/v1/pods@*:CREATE"), got.join("\n"));
    assert.ok(got.includes("apps/v1/deployments@*:CREATE"), got.join("\n"));
    assert.ok(!got.some((r) => r.includes("configmaps") || r.startsWith("*/")), got.join("\n"));
    const without = flat(
      vp(
        { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] },
        noAutogen,
      ),
    );
    assert.deepEqual(without, ["/v1/pods@*:CREATE"]);
  });

  test("excludeResourceRules remove operations only where they name the same resource without resourceNames", () => {
    const include = [
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE", "UPDATE", "DELETE"],
        resources: ["configmaps", "secrets"],
      },
    ];
    const removed = flat(
      vp({
        resourceRules: include,
        excludeResourceRules: [{ apiGroups: [""], apiVersions: ["*"], operations: ["DELETE"], resources: ["secrets"] }],
      }),
    );
    assert.deepEqual(removed, ["/v1/configmaps@*:CREATE,UPDATE,DELETE", "/v1/secrets@*:CREATE,UPDATE"]);
    const named = flat(
      vp({
        resourceRules: include,
        excludeResourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["secrets"], resourceNames: ["s"] },
        ],
      }),
    );
    assert.deepEqual(named, ["/v1/configmaps@*:CREATE,UPDATE,DELETE", "/v1/secrets@*:CREATE,UPDATE,DELETE"]);
  });
});

describe("registration: a MutatingPolicy", () => {
  test("registers what its matchConstraints name on the mutating webhook (where it is answered), not every resource", () => {
    const c = compileCelPolicy(
      {
        apiVersion: "policies.kyverno.io/v1beta1",
        kind: "MutatingPolicy",
        metadata: { name: "m" },
        spec: {
          matchConstraints: {
            resourceRules: [
              { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] },
            ],
          },
          mutations: [],
        },
      },
      engine,
    );
    assert.ok(c.policy !== undefined, JSON.stringify(c.problems));
    assert.deepEqual(flat(c.policy), []);
    assert.deepEqual(flat(c.policy, "mutate"), ["apps/v1/deployments@*:CREATE"]);
  });
});

describe("registration: one rule never lists a resource a wildcard beside it covers (the API server would refuse the configuration)", () => {
  test("a policy on every resource and one on pods share a rule: it lists `*` alone", () => {
    const set = new RuleSet();
    const rule = (resources: string[]) =>
      vp({ resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources }] }, noAutogen);
    addPolicyRules(set, rule(["*"]), "validate");
    addPolicyRules(set, rule(["pods", "pods/status"]), "validate");
    assert.deepEqual(
      set.rules().map((r) => r.resources),
      [["*", "pods/status"]],
    );
  });

  test("each wildcard drops only what it covers", () => {
    assert.deepEqual(withoutCovered(["*/*", "pods", "pods/log"]), ["*/*"]);
    assert.deepEqual(withoutCovered(["pods/*", "pods/status", "pods", "nodes/status"]), [
      "pods/*",
      "pods",
      "nodes/status",
    ]);
    assert.deepEqual(withoutCovered(["*/status", "pods/status", "pods/log", "pods"]), ["*/status", "pods/log", "pods"]);
    assert.deepEqual(withoutCovered(["configmaps", "secrets"]), ["configmaps", "secrets"]);
  });
});

describe("registration: GeneratingPolicy rules from matchConstraints", () => {
  const gp = (synchronize: boolean): CompiledPolicy => {
    const r = engine.compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "GeneratingPolicy",
      metadata: { name: "g" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
        },
        evaluation: { synchronize: { enabled: synchronize } },
        generate: [{ expression: 'generator.Apply("a", [])' }],
      },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    return r.policy;
  };

  test("its matchConstraints on the validating webhook (DELETE too when it synchronizes), nothing on the mutating one", () => {
    assert.deepEqual(flat(gp(false)), ["/v1/namespaces@*:CREATE"]);
    assert.deepEqual(flat(gp(true)), ["/v1/namespaces@*:CREATE,DELETE"]);
    assert.deepEqual(flat(gp(true), "mutate"), []);
  });
});

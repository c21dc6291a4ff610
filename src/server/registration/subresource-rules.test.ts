/**
 * Subresources are registered for every rule type and policy kind that names them (issue 33 §1): a
 * mutate rule on Deployment/scale on the mutating webhook, verifyImages on Pod with
 * pods/ephemeralcontainers (Kyverno registers it beside pods), a wildcard `*∕scale` (written with a division slash here) as written, and a
 * ValidatingPolicy's `resourceRules` subresources on the validating webhook (a MutatingPolicy's on the mutating one).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import { addPolicyRules, RuleSet } from "./webhook-rules.js";

const engine = createEngine(fakePorts());
const compile = (doc: JsonObject): CompiledPolicy => {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
};
const on = (kinds: string[], body: JsonObject): JsonObject => ({
  name: "r",
  match: { any: [{ resources: { kinds } }] },
  ...body,
});
function flat(policy: CompiledPolicy, webhook: "validate" | "mutate"): string[] {
  const set = new RuleSet();
  addPolicyRules(set, policy, webhook);
  return set
    .rules()
    .flatMap((r) =>
      r.resources.map((res) => `${r.apiGroups.join(",")}/${r.apiVersions.join(",")}/${res}:${r.operations.join(",")}`),
    )
    .sort();
}
const scaleRules = {
  resourceRules: [
    { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["deployments/scale"] },
    { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods/eviction"] },
    { apiGroups: ["*"], apiVersions: ["*"], operations: ["CREATE"], resources: ["*/scale"] },
  ],
};

describe("registration of subresources, every rule type and policy kind", () => {
  test("a mutate rule on Deployment/scale registers deployments/scale on the mutating webhook (CREATE, UPDATE)", () => {
    const p = compile(
      clusterPolicy("cap", [on(["Deployment/scale"], { mutate: { patchStrategicMerge: { spec: { replicas: 2 } } } })]),
    );
    assert.deepEqual(flat(p, "mutate"), ["apps/*/deployments/scale:CREATE,UPDATE"]);
    assert.deepEqual(flat(p, "validate"), []);
  });

  test("verifyImages on Pod registers pods and pods/ephemeralcontainers on both webhooks (kubectl debug is verified)", () => {
    const p = compile(
      clusterPolicy(
        "signed",
        [
          on(["Pod"], {
            verifyImages: [
              {
                imageReferences: ["*"],
                attestors: [{ entries: [{ keys: { publicKeys: "k", rekor: { ignoreTlog: true } } }] }],
              },
            ],
          }),
        ],
        { validationFailureAction: "Enforce" },
        { "pod-policies.kyverno.io/autogen-controllers": "none" },
      ),
    );
    for (const webhook of ["mutate", "validate"] as const) {
      const got = flat(p, webhook);
      assert.ok(
        got.some((r) => r.startsWith("/*/pods/ephemeralcontainers:")),
        `${webhook}: ${got.join("\n")}`,
      );
    }
  });

  test("a wildcard */scale rule is registered as */scale in every group", () => {
    const p = compile(
      clusterPolicy("any-scale", [
        on(["*/scale"], { validate: { message: "m", pattern: { spec: { replicas: "<=4" } } } }),
      ]),
    );
    assert.deepEqual(flat(p, "validate"), ["*/*/*/scale:CREATE,UPDATE,DELETE,CONNECT"]);
  });

  test("a ValidatingPolicy and a MutatingPolicy register the subresources their resourceRules name (each on its own webhook)", () => {
    for (const kind of ["ValidatingPolicy", "MutatingPolicy"]) {
      const doc: JsonObject = {
        apiVersion: "policies.kyverno.io/v1",
        kind,
        metadata: { name: "p" },
        spec: {
          matchConstraints: scaleRules,
          autogen: { podControllers: { controllers: [] } },
          ...(kind === "ValidatingPolicy"
            ? { validations: [{ expression: "true" }] }
            : { mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }] }),
        },
      };
      const compiled = compileCelPolicy(doc, engine).policy;
      assert.ok(compiled, kind);
      assert.deepEqual(
        flat(compiled, kind === "ValidatingPolicy" ? "validate" : "mutate"),
        ["*/*/*/scale:CREATE", "/v1/pods/eviction:CREATE", "apps/v1/deployments/scale:UPDATE"],
        kind,
      );
    }
  });
});

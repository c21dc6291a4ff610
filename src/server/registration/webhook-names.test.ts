/** `--kyverno-webhook-names`: every configuration and webhook Bylaw registers gets the name Kyverno v1.19 gives it (pkg/config/config.go, pkg/controllers/webhook `webhookNameAndPath`). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import { buildConfigurations } from "./build-configurations.js";
import type { RegistrationTarget } from "../../controllers/registration/types.js";
import { withEveryTimeout } from "../admission/webhook-groups.js";
import { configurationNames, policyWebhookName, resourceWebhookName } from "./webhook-names.js";

const engine = createEngine(fakePorts());
const compile = (doc: JsonObject): CompiledPolicy => {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
};
const kinds = (...k: string[]): JsonObject => ({ any: [{ resources: { kinds: k } }] });
const validate = { message: "m", pattern: { metadata: { labels: { app: "?*" } } } };
const target = (names?: "kyverno" | "bylaw"): RegistrationTarget => ({
  endpoint: { kind: "service", name: "bylaw", namespace: "bylaw", port: 443 },
  caPem: "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n",
  ownNamespace: "bylaw",
  ...(names !== undefined ? { names } : {}),
});
const groups = withEveryTimeout({ defaultSeconds: 10, extra: [], fineGrained: true });
const conditions = [{ name: "c", expression: "true" }];

const policies = (): CompiledPolicy[] => [
  compile(
    clusterPolicy("fail", [{ name: "r", match: kinds("Pod"), validate }], { validationFailureAction: "Enforce" }),
  ),
  compile(clusterPolicy("ignore", [{ name: "r", match: kinds("Pod"), validate }], { failurePolicy: "Ignore" })),
  compile(
    clusterPolicy("label", [
      { name: "r", match: kinds("ConfigMap"), mutate: { patchStrategicMerge: { metadata: { labels: { a: "b" } } } } },
    ]),
  ),
  compile(
    clusterPolicy("slow", [{ name: "r", match: kinds("Secret"), validate }], {
      webhookConfiguration: { timeoutSeconds: 20 },
    }),
  ),
  compile(
    clusterPolicy("scoped", [{ name: "r", match: kinds("ConfigMap"), validate }], {
      webhookConfiguration: { matchConditions: conditions },
    }),
  ),
  compile({
    apiVersion: "kyverno.io/v1",
    kind: "Policy",
    metadata: { name: "tenant", namespace: "team-a" },
    spec: { rules: [{ name: "r", match: kinds("Pod"), validate }] },
  }),
  compile({
    apiVersion: "kyverno.io/v1",
    kind: "Policy",
    metadata: { name: "fine", namespace: "team-a" },
    spec: {
      webhookConfiguration: { matchConditions: conditions },
      rules: [{ name: "r", match: kinds("Pod"), validate }],
    },
  }),
  celPolicy(),
];

function celPolicy(): CompiledPolicy {
  const c = compileCelPolicy(
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedValidatingPolicy",
      metadata: { name: "blue", namespace: "team-b" },
      spec: {
        validations: [{ expression: "true" }],
        matchConditions: conditions,
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        },
      },
    },
    engine,
  );
  assert.ok(c.policy !== undefined, JSON.stringify(c.problems));
  return c.policy;
}

describe("webhook names: Bylaw's own by default, Kyverno's with --kyverno-webhook-names", () => {
  test("the configurations and every webhook Kyverno has a name for carry Kyverno's; the ones it has none for keep Bylaw's", () => {
    const c = buildConfigurations(policies(), groups, target("kyverno"));
    assert.deepEqual(
      [c.validating.metadata.name, c.mutating.metadata.name, c.policyValidating.metadata.name],
      [
        "kyverno-resource-validating-webhook-cfg",
        "kyverno-resource-mutating-webhook-cfg",
        "kyverno-policy-validating-webhook-cfg",
      ],
    );
    assert.deepEqual(c.validating.webhooks.map((w) => w.name).sort(), [
      "nvpol.validate.kyverno.svc-fail-finegrained-blue",
      "validate.bylaw.svc-fail-ns-team-a",
      "validate.bylaw.svc-fail-timeout-20s",
      "validate.kyverno.svc-fail",
      "validate.kyverno.svc-fail-finegrained-scoped",
      "validate.kyverno.svc-fail-finegrained-team-a-fine",
      "validate.kyverno.svc-ignore",
    ]);
    assert.deepEqual(
      c.mutating.webhooks.map((w) => w.name),
      ["mutate.kyverno.svc-fail"],
    );
    assert.deepEqual(
      c.policyValidating.webhooks.map((w) => w.name),
      ["validate-policy.kyverno.svc"],
    );
    assert.deepEqual([...(c.owners.keys() ?? [])].sort(), [
      "kyverno-resource-mutating-webhook-cfg",
      "kyverno-resource-validating-webhook-cfg",
    ]);
  });

  test("only the names change: paths, rules and everything else are the same as under Bylaw's names", () => {
    const kyverno = buildConfigurations(policies(), groups, target("kyverno"));
    const bylaw = buildConfigurations(policies(), groups, target());
    const strip = (hooks: typeof bylaw.validating.webhooks) => hooks.map(({ name: _name, ...rest }) => rest);
    assert.deepEqual(strip(kyverno.validating.webhooks), strip(bylaw.validating.webhooks));
    assert.deepEqual(strip(kyverno.mutating.webhooks), strip(bylaw.mutating.webhooks));
    assert.deepEqual(strip(kyverno.policyValidating.webhooks), strip(bylaw.policyValidating.webhooks));
    assert.deepEqual(kyverno.validating.metadata.labels, bylaw.validating.metadata.labels);
  });

  test("by default the names are Bylaw's own", () => {
    const c = buildConfigurations(policies(), groups, target());
    assert.equal(c.validating.metadata.name, "bylaw-resource-validating-webhook-cfg");
    assert.ok(c.validating.webhooks.some((w) => w.name === "validate.bylaw.svc-fail"));
    assert.ok(c.validating.webhooks.some((w) => w.name === "nvpol.validate.bylaw.svc-fail-finegrained-team-b-blue"));
    assert.deepEqual(configurationNames(), {
      validating: "bylaw-resource-validating-webhook-cfg",
      mutating: "bylaw-resource-mutating-webhook-cfg",
      policyValidating: "bylaw-policy-validating-webhook-cfg",
    });
    assert.equal(policyWebhookName(), "validate-policy.bylaw.svc");
  });

  test("a fine-grained name past the API server's 253 characters is shortened with a hash, as Bylaw's are", () => {
    const long = "n".repeat(250);
    const name = resourceWebhookName(
      "validate",
      { mode: "fail", timeoutSeconds: 10, isDefault: true, policy: long },
      "kyverno",
    );
    assert.ok(name.length <= 253, `${name.length}`);
    assert.match(name, /^validate\.kyverno\.svc-fail-finegrained-n+-[0-9a-f]{12}$/);
  });
});

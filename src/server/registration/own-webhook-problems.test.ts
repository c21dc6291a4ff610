/** With --register, a CEL policy whose own webhook the API server would refuse is refused at load instead (own-webhook-problems.ts). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import type { TimeoutGroups } from "../admission/webhook-groups.js";
import { ownWebhookProblems } from "./own-webhook-problems.js";

const engine = createEngine(fakePorts());
const registering: TimeoutGroups = { defaultSeconds: 10, extra: [], fineGrained: true };
const configMaps = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
};
const pods = { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] };
const blue = [{ name: "blue", expression: "true" }];

function load(spec: JsonObject, groups: TimeoutGroups = registering): string[] {
  const doc = {
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "p" },
    spec: { validations: [{ expression: "true" }], ...spec },
  };
  const c = compileCelPolicy(doc, engine, (p) => ownWebhookProblems(p, groups));
  return c.problems.map((p) => `${p.path}: ${p.message}`);
}

describe("a CEL policy's own webhook, checked as the API server checks it", () => {
  test("selectors Kubernetes refuses make the policy invalid, naming the field", () => {
    const bad = load({
      matchConstraints: {
        ...configMaps,
        namespaceSelector: { matchExpressions: [{ key: "team", operator: "Bogus", values: ["a"] }] },
      },
      matchConditions: blue,
    });
    assert.deepEqual(bad, [
      'spec.matchConstraints.namespaceSelector.matchExpressions[0].operator: Bylaw\'s webhook for this policy: Invalid value: "Bogus": not a valid selector operator',
    ]);
    const noValues = load({
      matchConstraints: { ...configMaps, objectSelector: { matchExpressions: [{ key: "team", operator: "In" }] } },
      matchConditions: blue,
    });
    assert.match(
      noValues.join(),
      /objectSelector\.matchExpressions\[0\]\.values: .*Required value: must be specified when `operator` is 'In' or 'NotIn'/,
    );
    const badKey = load({
      matchConstraints: { ...configMaps, objectSelector: { matchLabels: { "bad key": "x" } } },
      matchConditions: blue,
    });
    assert.match(badKey.join(), /objectSelector\.matchLabels: .*label key "bad key" is invalid/);
    const badValue = load({
      matchConstraints: {
        ...configMaps,
        namespaceSelector: { matchExpressions: [{ key: "team", operator: "NotIn", values: ["a b"] }] },
      },
      matchConditions: blue,
    });
    assert.match(badValue.join(), /values\[0\]: .*label value "a b" is invalid/);
  });

  test("valid selectors, a policy with no webhook of its own, or no --register: nothing to refuse", () => {
    assert.deepEqual(
      load({
        matchConstraints: {
          ...configMaps,
          namespaceSelector: { matchLabels: { team: "a" }, matchExpressions: [{ key: "tier", operator: "Exists" }] },
        },
        matchConditions: blue,
      }),
      [],
    );
    const bogus = { ...configMaps, namespaceSelector: { matchExpressions: [{ key: "team", operator: "Bogus" }] } };
    assert.deepEqual(load({ matchConstraints: bogus }), [], "the shared webhooks do not carry a policy's selectors");
    assert.deepEqual(
      load({ matchConstraints: bogus, matchConditions: blue }, { defaultSeconds: 10, extra: [] }),
      [],
      "without --register no webhook of its own is written",
    );
  });

  test("more than 64 matchConditions once autogen adds its copies for pod controllers: refused, naming the count", () => {
    const conditions = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, expression: "true" }));
    assert.deepEqual(
      load({ matchConstraints: pods, matchConditions: conditions(21) }),
      [],
      "21 × 3 = 63, and Bylaw's own one",
    );
    const over = load({ matchConstraints: pods, matchConditions: conditions(22) });
    assert.equal(over.length, 1);
    assert.match(over[0] ?? "", /^spec\.matchConditions: .*would carry 67 matchConditions .* at most 64/);
    assert.deepEqual(
      load({ matchConstraints: configMaps, matchConditions: conditions(60) }),
      [],
      "no autogen for ConfigMaps: 60 fit",
    );
  });
});

/** Kyverno's policy and rule labels. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, Rule } from "../../engine/index.js";
import { policyLabels, policyValidationMode, ruleType } from "./policy-labels.js";
import { compiled, validatePolicy } from "../../../test/support/metrics-policies.js";

test("policy_validation_mode comes from spec.validationFailureAction, either case", () => {
  assert.equal(policyValidationMode(compiled(validatePolicy("p", { validationFailureAction: "Enforce" }))), "enforce");
  assert.equal(policyValidationMode(compiled(validatePolicy("p", { validationFailureAction: "enforce" }))), "enforce");
  assert.equal(policyValidationMode(compiled(validatePolicy("p", { validationFailureAction: "Audit" }))), "audit");
  assert.equal(policyValidationMode(compiled(validatePolicy("p"))), "audit");
});

test("a rule-level failureAction does not change policy_validation_mode (as in Kyverno)", () => {
  const doc = validatePolicy("p") as { spec: { rules: JsonObject[] } } & JsonObject;
  const rule = doc.spec.rules[0] as { validate: JsonObject } & JsonObject;
  const withRuleAction = {
    ...doc,
    spec: { rules: [{ ...rule, validate: { ...rule.validate, failureAction: "Enforce" } }] },
  };
  assert.equal(policyValidationMode(compiled(withRuleAction)), "audit");
});

test('a ClusterPolicy is cluster with namespace "-"; a Policy is namespaced with its namespace', () => {
  assert.deepEqual(policyLabels(compiled(validatePolicy("c", { background: false }))), {
    validationMode: "audit",
    type: "cluster",
    background: "false",
    namespace: "-",
    name: "c",
  });
  assert.deepEqual(policyLabels(compiled(validatePolicy("n", {}, ["Pod"], "team-a"))), {
    validationMode: "audit",
    type: "namespaced",
    background: "true",
    namespace: "team-a",
    name: "n",
  });
});

const rule = (r: Partial<Rule>): Rule => ({ name: "r", ...r });
const ruleCases: [string, Rule, string][] = [
  ["validate", rule({ validate: { pattern: {} } }), "validate"],
  ["mutate", rule({ mutate: { patchStrategicMerge: {} } }), "mutate"],
  ["generate", rule({ generate: { kind: "ConfigMap" } }), "generate"],
  ["verifyImages", rule({ verifyImages: [{ imageReferences: ["*"] }] }), "imageVerify"],
  ["an empty validate block does not count", rule({ validate: {}, mutate: { patchesJson6902: "[]" } }), "mutate"],
  ["nothing", rule({}), "-"],
];
for (const [name, r, want] of ruleCases) test(`rule_type: ${name}`, () => assert.equal(ruleType(r), want));

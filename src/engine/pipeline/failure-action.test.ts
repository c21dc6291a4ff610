/** Failure-action precedence (Kyverno `pkg/engine/api/engineresponse.go` `ruleAction`). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine } from "../engine.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { JsonObject } from "../api/json.js";
import { effectiveAction } from "./failure-action.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, podRule } from "../../../test/support/builders.js";

function compiled(doc: JsonObject): CompiledPolicy {
  const r = createEngine(fakePorts()).compile(doc);
  if (!r.ok) throw new Error("invalid");
  return r.policy;
}
const rule = (validate: JsonObject) => podRule("r", { pattern: { metadata: {} }, ...validate });

test("defaults to Audit", () =>
  assert.equal(effectiveAction(compiled(clusterPolicy("p", [rule({})])), "r", "ns"), "Audit"));
test("the spec action applies, lower case too", () =>
  assert.equal(
    effectiveAction(compiled(clusterPolicy("p", [rule({})], { validationFailureAction: "enforce" })), "r", "ns"),
    "Enforce",
  ));
test("the rule action beats the spec action", () =>
  assert.equal(
    effectiveAction(
      compiled(clusterPolicy("p", [rule({ failureAction: "Audit" })], { validationFailureAction: "Enforce" })),
      "r",
      "ns",
    ),
    "Audit",
  ));
test("a matching rule override beats the rule action; others do not", () => {
  const p = compiled(
    clusterPolicy("p", [
      rule({ failureAction: "Enforce", failureActionOverrides: [{ action: "Audit", namespaces: ["dev-*"] }] }),
    ]),
  );
  assert.equal(effectiveAction(p, "r", "dev-1"), "Audit");
  assert.equal(effectiveAction(p, "r", "prod"), "Enforce");
});
test("a spec override with a namespaceSelector needs matching namespace labels", () => {
  const p = compiled(
    clusterPolicy("p", [rule({})], {
      validationFailureActionOverrides: [{ action: "Enforce", namespaceSelector: { matchLabels: { env: "prod" } } }],
    }),
  );
  assert.equal(effectiveAction(p, "r", "x", { env: "prod" }), "Enforce");
  assert.equal(effectiveAction(p, "r", "x", { env: "dev" }), "Audit");
});

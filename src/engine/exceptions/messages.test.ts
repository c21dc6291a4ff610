import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileException } from "./compile-exception.js";
import { exceptionKey, exceptionSkipMessage } from "./messages.js";
import { podSecurityExceptionPlan, podSecurityExclusions } from "./pod-security.js";
import type { CompiledException } from "./types.js";

function exception(name: string, namespace: string, podSecurity: unknown[] = []): CompiledException {
  const r = compileException({
    apiVersion: "kyverno.io/v2",
    kind: "PolicyException",
    metadata: namespace === "" ? { name } : { name, namespace },
    spec: {
      exceptions: [{ policyName: "psa", ruleNames: ["restricted"] }],
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      podSecurity: podSecurity as never,
    },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.exception;
}

describe("Kyverno's exception texts", () => {
  test("keys are namespace/name, or the name alone", () => {
    assert.equal(exceptionKey("delta", "e"), "delta/e");
    assert.equal(exceptionKey("", "e"), "e");
  });

  test("the skip message joins keys with ', ' and has no space after 'exceptions'", () => {
    assert.equal(exceptionSkipMessage([exception("a", "delta")]), "rule is skipped due to policy exceptionsdelta/a");
    assert.equal(
      exceptionSkipMessage([exception("a", "delta"), exception("b", "")]),
      "rule is skipped due to policy exceptionsdelta/a, b",
    );
  });
});

describe("podSecurity exceptions", () => {
  const caps = { controlName: "Capabilities", images: ["nginx*"] };
  const root = { controlName: "Running as Non-root" };

  test("no matched exception: evaluate as usual", () => {
    assert.deepEqual(podSecurityExceptionPlan([]), { kind: "none" });
  });

  test("an exception without podSecurity entries skips the rule, naming only that exception", () => {
    const plan = podSecurityExceptionPlan([exception("a", "delta", [caps]), exception("whole", "delta")]);
    assert.equal(plan.kind, "skip");
    if (plan.kind === "skip") assert.equal(plan.message, "rule is skipped due to policy exception delta/whole");
  });

  test("otherwise every entry becomes an exclusion, and the skip message names all exceptions", () => {
    const matched = [exception("a", "delta", [caps]), exception("b", "ops", [root])];
    const plan = podSecurityExceptionPlan(matched);
    assert.equal(plan.kind, "exclude");
    if (plan.kind === "exclude") {
      assert.deepEqual(plan.exclusions, [caps, root]);
      assert.equal(plan.skipMessage, "rule is skipped due to policy exceptions delta/a, ops/b");
    }
    assert.deepEqual(podSecurityExclusions(matched), [caps, root]);
  });
});

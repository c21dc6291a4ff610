import { test } from "node:test";
import assert from "node:assert/strict";
import { namespaceBudgetFrom } from "./policy-budget-flags.js";

test("the namespace budget flags: defaults, sizes with units, and refusals naming the flag", () => {
  assert.deepEqual(namespaceBudgetFrom({}), { ok: true, value: { maxPolicies: 100, maxBytes: 1024 * 1024 } });
  assert.deepEqual(
    namespaceBudgetFrom({ "max-policies-per-namespace": "20", "max-policy-bytes-per-namespace": "256Ki" }),
    { ok: true, value: { maxPolicies: 20, maxBytes: 256 * 1024 } },
  );
  const bad = namespaceBudgetFrom({ "max-policies-per-namespace": "0" });
  assert.match(!bad.ok ? bad.error : "", /--max-policies-per-namespace must be a positive whole number/);
  const badBytes = namespaceBudgetFrom({ "max-policy-bytes-per-namespace": "lots" });
  assert.match(!badBytes.ok ? badBytes.error : "", /--max-policy-bytes-per-namespace must be a size/);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { loadsPolicySet } from "./no-policy-source.js";

test("only admission, background and reports load the policy set", () => {
  assert.equal(loadsPolicySet(["cleanup"]), false);
  assert.equal(loadsPolicySet(["monitoring"]), false);
  assert.equal(loadsPolicySet(["cleanup", "reports"]), true);
  assert.equal(loadsPolicySet(["admission"]), true);
});

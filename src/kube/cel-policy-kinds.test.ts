import { test } from "node:test";
import assert from "node:assert/strict";
import { kindDescriptor } from "../engine/index.js";
import { CEL_POLICY_KINDS } from "./cel-policy-kinds.js";

test("each watched policies.kyverno.io kind has the scope the engine's kind registry gives it", () => {
  for (const k of CEL_POLICY_KINDS) {
    const scope = kindDescriptor(k.kind)?.scope;
    assert.equal(scope, k.namespaced ? "namespaced" : "cluster", k.kind);
  }
});

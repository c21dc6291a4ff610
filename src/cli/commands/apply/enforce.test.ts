import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../../engine/index.js";
import { enforceDocument } from "./enforce.js";

const policy = (spec: JsonObject): JsonObject => ({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "p" },
  spec,
});
const validate = (extra: JsonObject = {}): JsonObject => ({
  name: "r",
  match: {},
  validate: { pattern: {}, ...extra },
});

describe("enforceDocument", () => {
  test("spec.validationFailureAction becomes Enforce, whether it said Audit or nothing", () => {
    for (const spec of [
      { validationFailureAction: "Audit", rules: [validate()] },
      { rules: [validate()] },
      { validationFailureAction: "audit", rules: [validate()] },
    ]) {
      assert.equal(
        (enforceDocument(policy(spec)) as { spec: { validationFailureAction: string } }).spec.validationFailureAction,
        "Enforce",
      );
    }
  });

  test("a rule's own failureAction becomes Enforce; rules without one are left to the spec", () => {
    const out = enforceDocument(policy({ rules: [validate({ failureAction: "Audit" }), validate()] })) as {
      spec: { rules: { validate: { failureAction?: string } }[] };
    };
    assert.equal(out.spec.rules[0]?.validate.failureAction, "Enforce");
    assert.equal(out.spec.rules[1]?.validate.failureAction, undefined);
  });

  test("overrides are left alone: a namespace kept in Audit stays in Audit", () => {
    const overrides = [{ action: "Audit", namespaces: ["legacy"] }];
    const out = enforceDocument(
      policy({
        validationFailureActionOverrides: overrides,
        rules: [validate({ failureAction: "Audit", failureActionOverrides: overrides })],
      }),
    ) as {
      spec: { validationFailureActionOverrides: unknown; rules: { validate: { failureActionOverrides: unknown } }[] };
    };
    assert.deepEqual(out.spec.validationFailureActionOverrides, overrides);
    assert.deepEqual(out.spec.rules[0]?.validate.failureActionOverrides, overrides);
  });

  test("mutate-only policies and other documents are not touched; the input is not modified", () => {
    const mutate = policy({ rules: [{ name: "m", match: {}, mutate: {} }] });
    assert.equal(enforceDocument(mutate), mutate);
    const pod = { apiVersion: "v1", kind: "Pod", spec: { validationFailureAction: "Audit" } };
    assert.equal(enforceDocument(pod), pod);
    const input = policy({ validationFailureAction: "Audit", rules: [validate({ failureAction: "Audit" })] });
    const before = JSON.stringify(input);
    enforceDocument(input);
    assert.equal(JSON.stringify(input), before);
  });
});

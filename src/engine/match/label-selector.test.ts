import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { LabelSelector } from "../api/policy.js";
import { evaluateSelector, expandMatchLabels } from "./label-selector.js";

describe("evaluateSelector", () => {
  const labels = { app: "web", tier: "front", "example.com/team": "a" };
  const cases: [string, LabelSelector, Record<string, string>, boolean][] = [
    ["empty selector selects everything", {}, {}, true],
    ["matchLabels equal", { matchLabels: { app: "web" } }, labels, true],
    ["matchLabels differs", { matchLabels: { app: "db" } }, labels, false],
    ["matchLabels missing key", { matchLabels: { env: "prod" } }, labels, false],
    ["wildcard value", { matchLabels: { app: "w*" } }, labels, true],
    ["wildcard key and value", { matchLabels: { "example.com/*": "?" } }, labels, true],
    ["wildcard finds nothing", { matchLabels: { "foo*": "*" } }, labels, false],
    ["{*:*} does not match an empty label set", { matchLabels: { "*": "*" } }, {}, false],
    ["{*:*} matches any label", { matchLabels: { "*": "*" } }, labels, true],
    ["In", { matchExpressions: [{ key: "app", operator: "In", values: ["web", "api"] }] }, labels, true],
    ["In missing key", { matchExpressions: [{ key: "x", operator: "In", values: ["web"] }] }, labels, false],
    ["NotIn", { matchExpressions: [{ key: "app", operator: "NotIn", values: ["web"] }] }, labels, false],
    [
      "NotIn missing key selects",
      { matchExpressions: [{ key: "x", operator: "NotIn", values: ["web"] }] },
      labels,
      true,
    ],
    ["Exists", { matchExpressions: [{ key: "tier", operator: "Exists" }] }, labels, true],
    ["DoesNotExist", { matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] }, labels, false],
    [
      "labels and expressions are ANDed",
      { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["back"] }] },
      labels,
      false,
    ],
  ];
  for (const [name, selector, l, want] of cases) {
    test(name, () => assert.deepEqual(evaluateSelector(selector, l), { ok: true, matched: want }));
  }

  const invalid: [string, LabelSelector, RegExp][] = [
    ["bad value", { matchLabels: { app: "has space" } }, /label value "has space" is invalid/],
    [
      "expressions do not expand wildcards",
      { matchExpressions: [{ key: "app", operator: "In", values: ["w*"] }] },
      /label value "w\*" is invalid/,
    ],
    ["bad key", { matchLabels: { "-x": "a" } }, /label key "-x" is invalid/],
    ["In without values", { matchExpressions: [{ key: "a", operator: "In", values: [] }] }, /needs at least one value/],
    [
      "Exists with values",
      { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] },
      /must not have values/,
    ],
    [
      "unknown operator",
      { matchExpressions: [{ key: "a", operator: "Equals" as "In", values: ["x"] }] },
      /not a valid label selector operator/,
    ],
  ];
  for (const [name, selector, re] of invalid) {
    test(`invalid: ${name}`, () => {
      const r = evaluateSelector(selector, { app: "web" });
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.error, re);
    });
  }
});

describe("expandMatchLabels", () => {
  test("replaces wildcards by the matching label, or by 0 when none matches", () => {
    assert.deepEqual(
      { ...expandMatchLabels({ "app*": "*", "x?": "y*", plain: "v" }, { application: "shop" }) },
      {
        application: "shop",
        x0: "y0",
        plain: "v",
      },
    );
  });
});

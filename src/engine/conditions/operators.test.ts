import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  OPERATOR_NAMES,
  checkOperatorName,
  isKnownOperatorName,
  operatorDeprecationWarning,
  operatorFor,
} from "./operators.js";

describe("operatorFor", () => {
  test("every Kyverno name resolves", () => {
    for (const name of OPERATOR_NAMES) assert.notEqual(operatorFor(name), undefined, name);
  });
  test("names are matched case-insensitively, with the Equal/NotEqual aliases", () => {
    const cases: [string, unknown, unknown, boolean][] = [
      ["equals", "a", "a", true],
      ["EQUAL", "a", "a", true],
      ["Equal", "a", "b", false],
      ["notequal", "a", "b", true],
      ["anyin", "a", ["a"], true],
      ["ALLNOTIN", "a", ["b"], true],
      ["in", "a", ["a"], true],
      ["NotIn", "a", ["a"], false],
    ];
    for (const [name, key, value, want] of cases) {
      const op = operatorFor(name);
      if (op === undefined) throw new Error(`no operator for ${name}`);
      assert.equal(op(key as never, value as never), want, name);
    }
  });
  test("comparisons only work with the exact spelling", () => {
    assert.equal(operatorFor("GreaterThan")?.(5, 3), true);
    assert.equal(operatorFor("greaterthan")?.(5, 3), false);
    assert.equal(operatorFor("LessThanOrEquals")?.("1Gi", "2Gi"), true);
    assert.equal(operatorFor("lessThanOrEquals")?.("1Gi", "2Gi"), false);
    assert.equal(operatorFor("DurationGreaterThan")?.("2h", "1h"), true);
    assert.equal(operatorFor("durationgreaterthan")?.("2h", "1h"), false);
  });
  test("unknown names have no operator", () => {
    for (const name of ["", "Contains", "GreaterThanOrEqual", "Duration", "DurationEquals"]) {
      assert.equal(operatorFor(name), undefined, name);
    }
  });
});

describe("admission checks", () => {
  test("exact names only", () => {
    assert.equal(isKnownOperatorName("AnyIn"), true);
    assert.equal(isKnownOperatorName("anyin"), false);
    assert.equal(checkOperatorName("AnyIn"), undefined);
    assert.equal(checkOperatorName("Equal"), undefined);
    const msg = checkOperatorName("equals");
    assert.ok(msg?.startsWith("entered value of `operator` is invalid. valid values: ["));
    assert.ok(msg?.includes('"Equals" "NotEqual"'));
  });
  test("In and NotIn carry the deprecation warning", () => {
    const inText = 'Operator In has been deprecated and will be removed soon. Use these instead: ["AllIn" "AnyIn"]';
    const notInText =
      'Operator NotIn has been deprecated and will be removed soon. Use these instead: ["AllNotIn" "AnyNotIn"]';
    assert.equal(operatorDeprecationWarning("In"), inText);
    assert.equal(operatorDeprecationWarning("NotIn"), notInText);
    assert.equal(checkOperatorName("In"), inText);
    assert.equal(operatorDeprecationWarning("AnyIn"), undefined);
  });
});

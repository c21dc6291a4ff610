import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  addQuantities,
  compareQuantities,
  divideQuantitiesTruncated,
  formatQuantity,
  parseQuantity,
  quantityToFloat64,
  subtractQuantities,
  type Quantity,
} from "./quantity.js";

function q(s: string): Quantity {
  const parsed = parseQuantity(s);
  if (parsed === undefined) throw new Error(`expected ${s} to parse`);
  return parsed;
}

describe("parseQuantity + formatQuantity (canonical String())", () => {
  const cases: Array<[string, string]> = [
    ["0", "0"],
    ["-0", "0"],
    ["000", "0"],
    ["1", "1"],
    ["100m", "100m"],
    ["1000m", "1"],
    ["1500m", "1500m"],
    ["1.5", "1500m"],
    ["0.5", "500m"],
    [".5", "500m"],
    ["1.", "1"],
    ["5.", "5"],
    ["1k", "1k"],
    ["1000", "1k"],
    ["1200", "1200"],
    ["12000", "12k"],
    ["1M", "1M"],
    ["1.5M", "1500k"],
    ["1E", "1E"],
    ["10E", "10E"],
    ["1n", "1n"],
    ["1u", "1u"],
    ["0.1n", "1n"],
    ["1.0000000001", "1000000001n"],
    ["1Ki", "1Ki"],
    ["1024", "1024"],
    ["1024Ki", "1Mi"],
    ["1536Ki", "1536Ki"],
    ["1.5Gi", "1536Mi"],
    ["0.5Ki", "512"],
    ["1.5Ki", "1536"],
    ["100Mi", "100Mi"],
    ["1Ei", "1Ei"],
    ["8Ei", "9223372036854775807"],
    ["1Pi", "1Pi"],
    ["0.5Mi", "512Ki"],
    ["1e3", "1e3"],
    ["1E3", "1e3"],
    ["1e+3", "1e3"],
    ["1.5e3", "1500"],
    ["1e-3", "1e-3"],
    ["1e-12", "1e-9"],
    ["-1.5", "-1500m"],
    ["-100Mi", "-100Mi"],
    ["+1k", "1k"],
    ["m", "0"],
    ["-", "0"],
    [".", "0"],
    // apimachinery caps BinarySI values only: decimal values beyond int64 keep their value.
    ["100000000000000000000", "100E"],
    ["12345678901234567890m", "12345678901234567890m"],
    ["1e-999999", "1e-9"],
    ["1234567890123456789e999999", "1234567890123456789e999999"],
    ["16Ei", "9223372036854775807"],
    ["1e999999", "1e999999"],
  ];
  for (const [input, want] of cases) {
    test(`${input} -> ${want}`, () => assert.equal(formatQuantity(q(input)), want));
  }

  const invalid = [
    "",
    "abc",
    "1K",
    "1ki",
    "1mi",
    "1e",
    "1Gi5",
    "1.5.5",
    "1 Gi",
    "1s",
    "1h",
    "1ms",
    " 1",
    "1e3x",
    "1ee3",
    "e-20",
  ];
  for (const input of invalid) {
    test(`rejects ${JSON.stringify(input)}`, () => assert.equal(parseQuantity(input), undefined));
  }
});

describe("compareQuantities", () => {
  const cases: Array<[string, string, -1 | 0 | 1]> = [
    ["1Gi", "1024Mi", 0],
    ["1G", "1Gi", -1],
    ["500m", "0.5", 0],
    ["2", "1500m", 1],
    ["-1", "1", -1],
    ["-2", "-1", -1],
    ["0", "-0", 0],
    ["1e3", "1k", 0],
    ["1e1000", "1", 1],
    ["1n", "0", 1],
    // Beyond int64, decimal values still compare by value (only BinarySI is capped).
    ["100E", "99E", 1],
    ["1e30", "2e30", -1],
    ["10000000000000000000000", "1e22", 0],
    ["9Ei", "10Ei", 0],
  ];
  for (const [a, b, want] of cases) {
    test(`${a} vs ${b} -> ${want}`, () => {
      assert.equal(compareQuantities(q(a), q(b)), want);
      assert.equal(compareQuantities(q(b), q(a)), -want || 0);
    });
  }
});

describe("quantity arithmetic", () => {
  test("add keeps the left format, unless the left side is zero", () => {
    assert.equal(formatQuantity(addQuantities(q("1Gi"), q("512Mi"))), "1536Mi");
    assert.equal(formatQuantity(addQuantities(q("1G"), q("1Gi"))), "2073741824");
    assert.equal(formatQuantity(addQuantities(q("0"), q("1Gi"))), "1Gi");
    assert.equal(formatQuantity(addQuantities(q("100m"), q("1"))), "1100m");
  });
  test("subtract", () => {
    assert.equal(formatQuantity(subtractQuantities(q("1Gi"), q("512Mi"))), "512Mi");
    assert.equal(formatQuantity(subtractQuantities(q("1"), q("1500m"))), "-500m");
  });
  test("truncated division at a chosen scale", () => {
    assert.equal(formatQuantity(divideQuantitiesTruncated(q("10"), q("3"), 0, "DecimalSI")), "3");
    assert.equal(formatQuantity(divideQuantitiesTruncated(q("10.0"), q("3"), 1, "DecimalSI")), "3300m");
    assert.equal(formatQuantity(divideQuantitiesTruncated(q("-10"), q("3"), 0, "DecimalSI")), "-3");
  });
  test("AsApproximateFloat64", () => {
    assert.equal(quantityToFloat64(q("1.5")), 1.5);
    assert.equal(quantityToFloat64(q("10Mi")), 10485760);
    assert.equal(quantityToFloat64(q("300m")), 0.3);
    assert.equal(quantityToFloat64(q("1k")), 1000);
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { goFormatFixed } from "./format-fixed.js";

/** The next double above `x` (x > 0). */
function nextUp(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}

describe("goFormatFixed prints %f of a float64", () => {
  const rows: [number, string][] = [
    [3000, "3000.000000"],
    [1.5, "1.500000"],
    [-2.25, "-2.250000"],
    [-0.25, "-0.250000"],
    [0.0078125, "0.007812"], // an exact tie rounds half to even, unlike toFixed
    [-0.0078125, "-0.007812"],
    [0.0234375, "0.023438"],
    [0.0000005, "0.000000"], // the double is just below 5e-7
    [0.0000015, "0.000002"],
    [0.0000025, "0.000003"], // the double is just above 2.5e-6: no tie
    [nextUp(0.0000005), "0.000001"],
    [nextUp(0.0078125), "0.007813"],
    [-1e-9, "-0.000000"],
    [-0, "-0.000000"],
    [123456789.1234565, "123456789.123456"],
    [1e22, "10000000000000000000000.000000"],
    [NaN, "NaN"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
  ];
  for (const [n, text] of rows) test(`%f of ${n} is ${text}`, () => assert.equal(goFormatFixed(n), text));

  test("agrees with the exact decimal expansion on seeded values at, near and between ties", () => {
    // toFixed(100) is the exact decimal value of a double of at least 2^-20 (at most 72 fractional
    // digits); rounding its digits by hand, half to even, is Go's %f.
    const oracle = (x: number): string => {
      const [whole = "", frac = ""] = x.toFixed(100).split(".");
      const kept = BigInt(whole + frac.slice(0, 6));
      const rest = frac.slice(6).replace(/0+$/, "");
      const up = rest > "5" || (rest === "5" && kept % 2n === 1n);
      const digits = (up ? kept + 1n : kept).toString().padStart(7, "0");
      return `${digits.slice(0, -6)}.${digits.slice(-6)}`;
    };
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 20000; i++) {
      const k = 1 + (next() % 2_000_000);
      const candidates = [
        (k + 0.5) / 1e6,
        nextUp((k + 0.5) / 1e6),
        k / 2 ** (7 + (next() % 14)),
        k / 1e6 + (next() % 1000) / 1e9,
      ];
      for (const x of candidates) assert.equal(goFormatFixed(x), oracle(x), `%f of ${x}`);
    }
  });
});

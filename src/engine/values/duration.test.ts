import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  formatDuration,
  parseDuration,
  parseDurationMillis,
  parseDurationOrError,
  HOUR,
  MINUTE,
  SECOND,
} from "./duration.js";

describe("parseDuration (Go time.ParseDuration)", () => {
  const valid: Array<[string, bigint]> = [
    ["0", 0n],
    ["+0", 0n],
    ["-0", 0n],
    ["5s", 5n * SECOND],
    ["30s", 30n * SECOND],
    ["1478s", 1478n * SECOND],
    ["-5s", -5n * SECOND],
    ["+5s", 5n * SECOND],
    ["-0s", 0n],
    ["5.0s", 5n * SECOND],
    ["5.6s", 5n * SECOND + 600_000_000n],
    ["5.s", 5n * SECOND],
    [".5s", 500_000_000n],
    ["1.0s", SECOND],
    ["1.004s", SECOND + 4_000_000n],
    ["100.00100s", 100n * SECOND + 1_000_000n],
    ["10ns", 10n],
    ["11us", 11_000n],
    ["12µs", 12_000n],
    ["12μs", 12_000n],
    ["13ms", 13_000_000n],
    ["14s", 14n * SECOND],
    ["15m", 15n * MINUTE],
    ["16h", 16n * HOUR],
    ["3h30m", 3n * HOUR + 30n * MINUTE],
    ["10.5s4m", 4n * MINUTE + 10n * SECOND + 500_000_000n],
    ["-2m3.4s", -(2n * MINUTE + 3n * SECOND + 400_000_000n)],
    ["1h2m3s4ms5us6ns", HOUR + 2n * MINUTE + 3n * SECOND + 4_000_000n + 5_000n + 6n],
    ["39h9m14.425s", 39n * HOUR + 9n * MINUTE + 14n * SECOND + 425_000_000n],
    ["52763797000ns", 52_763_797_000n],
    ["0.3333333333333333333h", 1_200_000_000_000n],
    ["9007199254740993ns", 9_007_199_254_740_993n],
    ["9223372036854775807ns", 9_223_372_036_854_775_807n],
    ["9223372036854775.807us", 9_223_372_036_854_775_807n],
    ["-9223372036854775808ns", -9_223_372_036_854_775_808n],
    ["0.100000000000000000000h", 360_000_000_000n],
  ];
  for (const [input, want] of valid) {
    test(`${input} -> ${want}ns`, () => assert.equal(parseDuration(input), want));
  }

  const invalid = [
    "",
    "3",
    "-",
    "s",
    ".",
    "-.",
    ".s",
    "+.s",
    "1d",
    "1m1",
    "1.5",
    "9223372036854775808ns",
    "1e3s",
    " 1s",
    "1 s",
    "1S",
  ];
  for (const input of invalid) {
    test(`rejects ${JSON.stringify(input)}`, () => assert.equal(parseDuration(input), undefined));
  }

  test("gives Go's error texts", () => {
    assert.equal(parseDurationOrError("3"), 'time: missing unit in duration "3"');
    assert.equal(parseDurationOrError("1d"), 'time: unknown unit "d" in duration "1d"');
    assert.equal(parseDurationOrError("x"), 'time: invalid duration "x"');
  });
});

describe("formatDuration (Go Duration.String)", () => {
  const cases: Array<[bigint, string]> = [
    [0n, "0s"],
    [1n, "1ns"],
    [1100n, "1.1µs"],
    [2_200_000n, "2.2ms"],
    [3_300_000_000n, "3.3s"],
    [500_000_000n, "500ms"],
    [4n * MINUTE + 5n * SECOND, "4m5s"],
    [4n * MINUTE + 5_001_000_000n, "4m5.001s"],
    [5n * HOUR + 6n * MINUTE + 7_001_000_000n, "5h6m7.001s"],
    [8n * MINUTE + 1n, "8m0.000000001s"],
    [HOUR, "1h0m0s"],
    [HOUR + 5n * SECOND, "1h0m5s"],
    [-HOUR - 30n * MINUTE, "-1h30m0s"],
    [-1n, "-1ns"],
    [9_223_372_036_854_775_807n, "2562047h47m16.854775807s"],
    [-9_223_372_036_854_775_808n, "-2562047h47m16.854775808s"],
  ];
  for (const [ns, want] of cases) {
    test(`${ns}ns -> ${want}`, () => assert.equal(formatDuration(ns), want));
  }

  test("round-trips through parseDuration", () => {
    for (const s of ["1h0m5s", "1.5s", "500ms", "-3m0.25s", "12.345µs"]) {
      const ns = parseDuration(s);
      assert.notEqual(ns, undefined);
      assert.equal(formatDuration(ns ?? 0n), s);
    }
  });
});

describe("parseDurationMillis (refreshInterval and duration flags)", () => {
  test("parses Go's syntax into milliseconds and refuses the rest", () => {
    assert.equal(parseDurationMillis("10m"), 600_000);
    assert.equal(parseDurationMillis("1h30m"), 5_400_000);
    assert.equal(parseDurationMillis("1.5s"), 1500);
    assert.equal(parseDurationMillis("250ms"), 250);
    assert.equal(parseDurationMillis("1500us"), 1.5);
    for (const bad of ["", "10", "ten minutes", "5d"]) assert.equal(parseDurationMillis(bad), undefined, bad);
  });

  test("with days, `d` is 24 hours", () => {
    assert.equal(parseDurationMillis("15d", { days: true }), 15 * 86_400_000);
    assert.equal(parseDurationMillis("1d12h", { days: true }), 36 * 3_600_000);
    assert.equal(parseDurationOrError("1d"), 'time: unknown unit "d" in duration "1d"');
  });
});

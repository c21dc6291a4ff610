import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { matchesStringPattern, operatorOfPattern, type PatternOperator } from "./range-pattern.js";

describe("operatorOfPattern", () => {
  const cases: [string, PatternOperator][] = [
    ["1-5", "-"],
    ["10Mi-20Mi", "-"],
    ["-5-10", "-"],
    ["1.5-2.5", "-"],
    ["1!-5", "!-"],
    [">=5", ">="],
    ["<5", "<"],
    ["!x", "!"],
    ["a-b", ""],
    ["5", ""],
    ["1-2-3", ""],
  ];
  for (const [p, want] of cases) test(`${p} → ${JSON.stringify(want)}`, () => assert.equal(operatorOfPattern(p), want));
});

describe("matchesStringPattern with ranges", () => {
  const cases: [string, string, boolean][] = [
    ["5", "1-10", true],
    ["1", "1-10", true],
    ["10", "1-10", true],
    ["11", "1-10", false],
    ["0", "1-10", false],
    ["15Mi", "10Mi-20Mi", true],
    ["1Gi", "10Mi-20Mi", false],
    ["1m", "30s-2m", true], // durations compare as durations
    ["abc", "1-10", false],
    ["11", "1!-10", true],
    ["5", "1!-10", false],
    ["5", ">= 3 & < 6", true],
    ["7", "< 3 | > 6", true],
    ["x", "!y", true],
    ["prod-1", "prod-*", true],
  ];
  for (const [value, pattern, want] of cases) {
    test(`${value} against ${pattern} → ${want}`, () => assert.equal(matchesStringPattern(value, pattern), want));
  }
});

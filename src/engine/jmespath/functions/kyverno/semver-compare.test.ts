import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { JmesPathError } from "../../types.js";
import { call } from "../../../../../test/support/fake-function-context.js";
import { semverFunctions } from "./semver-compare.js";

const cases: ReadonlyArray<readonly [string, string, boolean]> = [
  ["1.2.3", "1.2.4", false],
  ["1.2.3", "1.2.3", true],
  ["1.2.3", "=1.2.3", true],
  ["1.2.3", "==1.2.3", true],
  ["1.2.3", "!=1.2.3", false],
  ["1.2.3", "!1.2.4", true],
  ["4.1.3", ">=4.1.x", true],
  ["4.1.3", "4.1.x", true],
  ["4.2.0", "4.1.x", false],
  ["4.1.3", "!4.x.x", false], // blang ANDs both halves, so this never matches
  ["1.8.6", ">1.0.0 <2.0.0", true],
  ["2.1.5", "<2.0.0 || >=3.0.0", false],
  ["3.0.0", "<2.0.0 || >=3.0.0", true],
  ["1.5.0", ">= 1.0.0", true], // a space after the operator is allowed
  ["1.5.0", ">1.x", false],
  ["2.0.0", ">1.x", true],
  ["1.9.9", "<=1.x", true],
  ["1.0.0-rc.1", ">=1.0.0", false],
  ["1.0.0-rc.1", "<1.0.0", true],
  ["not-a-version", "<0.0.1", true], // unparsable versions count as 0.0.0
  ["v1.2.3", "=0.0.0", true],
];

describe("semver_compare", () => {
  for (const [version, range, want] of cases) {
    test(`semver_compare(${JSON.stringify(version)}, ${JSON.stringify(range)}) = ${want}`, () => {
      assert.equal(call(semverFunctions, "semver_compare", [version, range]), want);
    });
  }

  const errors: ReadonlyArray<readonly [string, string]> = [
    ["abc", 'Could not get version from string: "abc"'],
    ["|| >1.0.0", "First element in range is '||'"],
    [">1.0.0 ||", "Last element in range is '||'"],
    ["1", "Last element in range is '||'"], // one-character parts are dropped by blang's splitter
    [
      ">1.0",
      'Could not parse Range ">1.0": Could not parse version "1.0" in ">1.0": No Major.Minor.Patch elements found',
    ],
    ["~1.0.0", 'Could not parse Range "~1.0.0": Could not parse comparator "~" in "~1.0.0"'],
  ];
  for (const [range, message] of errors) {
    test(`range ${JSON.stringify(range)} fails: ${message}`, () => {
      assert.throws(
        () => call(semverFunctions, "semver_compare", ["1.0.0", range]),
        (e: unknown) => e instanceof JmesPathError && e.message === message,
      );
    });
  }
});

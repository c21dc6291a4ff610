import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compareSemver, formatSemver, parseSemver, parseSemverOrError } from "./semver.js";

describe("parseSemver (strict)", () => {
  const valid = [
    "0.0.0",
    "1.2.3",
    "10.20.30",
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-0.3.7",
    "1.0.0-x-y-z.--",
    "1.0.0+build.1",
    "1.0.0-rc.1+exp.sha.5114f85",
  ];
  for (const v of valid)
    test(`${v} parses and prints back`, () => assert.equal(formatSemver(parseSemver(v) ?? assert.fail(v)), v));

  const invalid = [
    "",
    "1",
    "1.2",
    "v1.2.3",
    "01.2.3",
    "1.02.3",
    "1.2.03",
    "1.2.3-",
    "1.2.3-01",
    "1.2.3+",
    "1.2.3+a..b",
    "1.2.3-a_b",
    "1.2.x",
    "1.2.3.4",
    " 1.2.3",
    "18446744073709551616.0.0",
  ];
  for (const v of invalid) test(`${JSON.stringify(v)} is rejected`, () => assert.equal(parseSemver(v), undefined));

  test("errors say why", () => {
    assert.equal(parseSemverOrError(""), "Version string empty");
    assert.equal(parseSemverOrError("1.2"), "No Major.Minor.Patch elements found");
  });
  test("large numbers are kept exactly", () => {
    assert.equal(parseSemver("18446744073709551615.0.0")?.major, 18446744073709551615n);
  });
});

describe("compareSemver", () => {
  // Each version is lower than the next (semver.org precedence example, and more).
  const ordered = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.1",
    "1.1.0",
    "1.9.0",
    "1.10.0",
    "2.0.0",
  ];
  for (let i = 0; i + 1 < ordered.length; i++) {
    const a = ordered[i] as string;
    const b = ordered[i + 1] as string;
    test(`${a} < ${b}`, () => {
      const pa = parseSemver(a) ?? assert.fail(a);
      const pb = parseSemver(b) ?? assert.fail(b);
      assert.equal(compareSemver(pa, pb), -1);
      assert.equal(compareSemver(pb, pa), 1);
    });
  }
  test("build metadata does not count", () => {
    assert.equal(compareSemver(parseSemver("1.0.0+a") ?? assert.fail(), parseSemver("1.0.0+b") ?? assert.fail()), 0);
  });
});

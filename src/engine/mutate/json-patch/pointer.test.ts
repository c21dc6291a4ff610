import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { escapePointerToken, formatPointer, parseGoIndex, parsePointer, unescapePointerToken } from "./pointer.js";

describe("JSON pointer tokens", () => {
  const cases: [string, string][] = [
    ["kyverno.io/x", "kyverno.io~1x"],
    ["a~b", "a~0b"],
    ["~/", "~0~1"],
    ["/~1", "~1~01"],
    ["plain", "plain"],
    ["", ""],
  ];
  for (const [token, escaped] of cases) {
    test(`${JSON.stringify(token)} <-> ${JSON.stringify(escaped)}`, () => {
      assert.equal(escapePointerToken(token), escaped);
      assert.equal(unescapePointerToken(escaped), token);
    });
  }

  test("~01 decodes to ~1, not /", () => assert.equal(unescapePointerToken("~01"), "~1"));
  test("an unknown escape is kept as written (as Go's strings.Replacer does)", () => {
    assert.equal(unescapePointerToken("a~2b~"), "a~2b~");
  });
});

describe("parsePointer", () => {
  const good: [string, string[]][] = [
    ["", []],
    ["/", [""]],
    ["/metadata/annotations/kyverno.io~1x", ["metadata", "annotations", "kyverno.io/x"]],
    ["/spec/containers/-", ["spec", "containers", "-"]],
    ["/a//b", ["a", "", "b"]],
  ];
  for (const [p, tokens] of good) {
    test(`${JSON.stringify(p)}`, () => assert.deepEqual(parsePointer(p), { ok: true, value: tokens }));
  }
  test("a pointer must start with /", () => {
    const r = parsePointer("spec/x");
    assert.equal(r.ok, false);
    assert.match(r.ok ? "" : r.error.message, /must be "" or start with "\/" \(got "spec\/x"\)/);
  });
  test("formatPointer is the inverse", () => {
    for (const [p, tokens] of good) assert.equal(formatPointer(tokens), p);
  });
});

describe("array indices read like Go's strconv.Atoi", () => {
  const cases: [string, number | undefined][] = [
    ["0", 0],
    ["12", 12],
    ["-1", -1],
    ["+3", 3],
    ["007", 7],
    ["-0", 0],
    ["-", undefined],
    ["", undefined],
    ["1.0", undefined],
    [" 1", undefined],
    ["0x1", undefined],
    ["a", undefined],
    ["9223372036854775807", 9223372036854775807],
    ["99999999999999999999", undefined],
  ];
  for (const [token, want] of cases) test(JSON.stringify(token), () => assert.equal(parseGoIndex(token), want));
});

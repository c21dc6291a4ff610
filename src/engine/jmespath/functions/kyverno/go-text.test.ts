import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { utf8DecodeLossy, utf8Encode } from "./go-text.js";
import { goFormatFloat as formatFloatV } from "../../../go/format-value.js";
import { compareCodePoints as compareStrings } from "../../../go/strings.js";

describe("Go text helpers", () => {
  const floatV: ReadonlyArray<readonly [number, string]> = [
    [2.5, "2.5"],
    [100000, "100000"],
    [1e6, "1e+06"],
    [1234567, "1.234567e+06"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [-3, "-3"],
    [1e21, "1e+21"],
    [1.5e-7, "1.5e-07"],
  ];
  for (const [n, want] of floatV) {
    test(`Sprintf("%v", ${n}) = ${want}`, () => assert.equal(formatFloatV(n), want));
  }

  test("string comparison is by code point (UTF-8 byte order)", () => {
    assert.equal(compareStrings("a", "b"), -1);
    assert.equal(compareStrings("ab", "a"), 1);
    assert.equal(compareStrings("\uffff", "\u{1F600}"), -1);
  });

  test("UTF-8 round trip, and invalid bytes become U+FFFD one by one", () => {
    assert.equal(utf8DecodeLossy(utf8Encode("héllo 😀")), "héllo 😀");
    assert.equal(utf8DecodeLossy(Uint8Array.from([0x61, 0xe2, 0x82, 0x62])), "a\ufffd\ufffdb");
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatFloatE, goTypeName, goValueString } from "./go-format.js";
import { goFormatFloat as formatFloatV } from "../go/format-value.js";
import { compareCodePoints as compareGoStrings } from "../go/strings.js";
import { goParseFloat as parseGoFloat } from "../go/parse-float.js";
import { parseGoInt } from "./go-parse.js";

describe("Go number text", () => {
  const eCases: ReadonlyArray<readonly [number, string]> = [
    [1.5, "1.5E+00"],
    [-1.5, "-1.5E+00"],
    [0.001, "1E-03"],
    [100.25, "1.0025E+02"],
    [1.5e100, "1.5E+100"],
  ];
  for (const [v, want] of eCases) test(`%E ${v}`, () => assert.equal(formatFloatE(v), want));

  const vCases: ReadonlyArray<readonly [number, string]> = [
    [1.5, "1.5"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [123456.5, "123456.5"],
    [1234567.5, "1.2345675e+06"],
  ];
  for (const [v, want] of vCases) test(`%v ${v}`, () => assert.equal(formatFloatV(v), want));
});

describe("goValueString and goTypeName", () => {
  test("formats values as Go %v does", () => {
    assert.equal(goValueString(null), "<nil>");
    assert.equal(goValueString(undefined), "<nil>");
    assert.equal(goValueString(42), "42");
    assert.equal(goValueString(2.5), "2.5");
    assert.equal(goValueString(true), "true");
    assert.equal(goValueString(["a", 1]), "[a 1]");
    assert.equal(goValueString({ b: { c: "d" }, a: 1 }), "map[a:1 b:map[c:d]]");
  });

  test("names types as Go %T does", () => {
    assert.equal(goTypeName(undefined), "<nil>");
    assert.equal(goTypeName("x"), "string");
    assert.equal(goTypeName(3), "int64");
    assert.equal(goTypeName(3.5), "float64");
    assert.equal(goTypeName(false), "bool");
    assert.equal(goTypeName([]), "[]interface {}");
    assert.equal(goTypeName({}), "map[string]interface {}");
  });

  test("sorts strings bytewise like Go", () => {
    const keys = ["=(b)", "(z)", "X(a)", "^(a)", "a"];
    assert.deepEqual([...keys].sort(compareGoStrings), ["(z)", "=(b)", "X(a)", "^(a)", "a"]);
    assert.equal(compareGoStrings("\u{1F600}", "\uFFFF"), 1);
  });
});

describe("Go strconv parsing", () => {
  test("ParseInt base 10", () => {
    assert.equal(parseGoInt("42"), 42n);
    assert.equal(parseGoInt("+7"), 7n);
    assert.equal(parseGoInt("-3"), -3n);
    assert.equal(parseGoInt("3.0"), undefined);
    assert.equal(parseGoInt(" 3"), undefined);
    assert.equal(parseGoInt("9223372036854775808"), undefined);
  });

  test("ParseFloat", () => {
    assert.equal(parseGoFloat("1.5"), 1.5);
    assert.equal(parseGoFloat("1e3"), 1000);
    assert.equal(parseGoFloat(".5"), 0.5);
    assert.equal(parseGoFloat("0x1p-2"), 0.25);
    assert.equal(parseGoFloat("Inf"), Infinity);
    assert.equal(parseGoFloat("1e400"), undefined);
    assert.equal(parseGoFloat("abc"), undefined);
    assert.equal(parseGoFloat(""), undefined);
  });
});

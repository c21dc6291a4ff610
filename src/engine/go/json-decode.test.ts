import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { GoJsonDecodeError, goJsonUnmarshal } from "./json-decode.js";

describe("goJsonUnmarshal decodes like json.Unmarshal into interface{}", () => {
  const values: readonly [string, unknown][] = [
    ["1", 1],
    [" -0.5e2 ", -50],
    ['"a\\u00e9\\n"', "aé\n"],
    ['"\\ud83d\\ude00"', "😀"],
    ['"\\ud83d"', "\ufffd"],
    ['"\\ud83dx"', "\ufffdx"],
    ["[1, [true, null], {}]", [1, [true, null], {}]],
    ['{"a": 1, "a": 2}', { a: 2 }],
    ['{"b": {"c": []}}', { b: { c: [] } }],
  ];
  for (const [text, expected] of values) {
    test(text, () => assert.deepEqual(goJsonUnmarshal(text), expected));
  }

  test("a __proto__ key is an ordinary key", () => {
    const v = goJsonUnmarshal('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(v), ["__proto__"]);
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
  });
});

describe("goJsonUnmarshal reports Go's error texts", () => {
  const errors: readonly [string, string][] = [
    ["", "unexpected end of JSON input"],
    ["   ", "unexpected end of JSON input"],
    ["foo", "invalid character 'o' in literal false (expecting 'a')"],
    ["nul", "unexpected end of JSON input"],
    ["tru e", "invalid character ' ' in literal true (expecting 'e')"],
    ["x", "invalid character 'x' looking for beginning of value"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ["[1 2]", "invalid character '2' after array element"],
    ["{a: 1}", "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a": 1 "b": 2}', "invalid character '\"' after object key:value pair"],
    ['{"a": 1,}', "invalid character '}' looking for beginning of object key string"],
    ["1 2", "invalid character '2' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ["-", "unexpected end of JSON input"],
    ["-a", "invalid character 'a' in numeric literal"],
    ["1.", "unexpected end of JSON input"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["1e+", "unexpected end of JSON input"],
    ["1ex", "invalid character 'x' in exponent of numeric literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"abc', "unexpected end of JSON input"],
    ["'x'", "invalid character '\\'' looking for beginning of value"],
    ["é", "invalid character 'Ã' looking for beginning of value"],
    ["1e400", "json: cannot unmarshal number 1e400 into Go value of type float64"],
  ];
  for (const [text, message] of errors) {
    test(JSON.stringify(text), () => {
      assert.throws(
        () => goJsonUnmarshal(text),
        (e: unknown) => e instanceof GoJsonDecodeError && e.message === message,
      );
    });
  }

  test("nesting beyond maxDepth is reported as too deep", () => {
    assert.throws(
      () => goJsonUnmarshal("[[[1]]]", 2),
      (e: unknown) => e instanceof GoJsonDecodeError && e.tooDeep,
    );
    assert.deepEqual(goJsonUnmarshal("[[1]]", 2), [[1]]);
  });
});

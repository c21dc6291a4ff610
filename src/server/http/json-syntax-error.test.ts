import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { findJsonSyntaxError, parseJson } from "./json-syntax-error.js";

describe("findJsonSyntaxError", () => {
  const broken: [string, string, number][] = [
    ['{"a":}', "unexpected '}' where a value was expected", 5],
    ["[1,]", "unexpected ']' where a value was expected", 3],
    ['{"a":1,}', "expected a string object key but found '}'", 7],
    ["{a:1}", "expected a string object key but found 'a'", 1],
    ['{"a" 1}', "expected ':' after an object key but found '1'", 5],
    ["[1 2]", "expected ',' or ']' but found '2'", 3],
    ['{"a":1]', "expected ',' or '}' but found ']'", 6],
    ["{} x", "unexpected 'x' after the end of the JSON value", 3],
    ['"abc', "unterminated string", 0],
    ['"a\tb"', "unescaped control character U+0009 in a string", 2],
    ['"\\x"', "bad escape sequence in a string", 1],
    ['"\\u12"', "bad \\u escape in a string (needs 4 hex digits)", 1],
    ["01", "malformed number", 1],
    ["-", "malformed number", 0],
    ["1.", "malformed number", 1],
    ["tru", "unexpected 't' where a value was expected", 0],
    ["[", "unexpected end of JSON input", 1],
    ["\uFEFF{}", "unexpected U+FEFF where a value was expected", 0],
  ];
  for (const [text, message, offset] of broken) {
    test(`${JSON.stringify(text)}: ${message} at offset ${offset}`, () => {
      assert.throws(() => JSON.parse(text)); // the case really is invalid JSON
      const problem = findJsonSyntaxError(text);
      assert.equal(problem?.offset, offset);
      assert.ok(problem?.message.startsWith(message), problem?.message);
    });
  }

  test("line and column count from 1", () => {
    assert.deepEqual(findJsonSyntaxError('{\n  "a": 1,\n  "b": ]\n}'), {
      message: "unexpected ']' where a value was expected at line 3, column 8 (offset 19)",
      offset: 19,
      line: 3,
      column: 8,
    });
  });

  test("valid JSON has no problem, whatever its shape", () => {
    for (const text of [
      '{"a":[1,-2.5e+3,true,false,null,"\\u00e9\\n"],"b":{}}',
      " [ ] ",
      '"x"',
      "0",
      `[${"9".repeat(1000)}]`,
    ]) {
      assert.doesNotThrow(() => JSON.parse(text));
      assert.equal(findJsonSyntaxError(text), undefined, text);
    }
  });

  test("deep nesting does not overflow the stack", () => {
    const deep = "[".repeat(200_000) + "]".repeat(199_999);
    assert.equal(
      findJsonSyntaxError(deep)?.message,
      "unexpected end of JSON input at line 1, column 400000 (offset 399999)",
    );
  });
});

describe("parseJson", () => {
  test("parses, or explains where the text is broken without quoting it", () => {
    assert.deepEqual(parseJson('{"a":1}'), { ok: true, value: { a: 1 } });
    assert.deepEqual(parseJson("  "), { ok: false, message: "the request body is empty" });
    assert.deepEqual(parseJson('{"secret":"hunter2",}'), {
      ok: false,
      message: "expected a string object key but found '}' at line 1, column 21 (offset 20)",
    });
  });
});

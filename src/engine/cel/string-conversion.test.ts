import { test } from "node:test";
import assert from "node:assert/strict";
import { sharedCel } from "./shared-cel.js";
import { stringConversionError } from "./string-conversion.js";

test("a value that is not a string gets cel-go's conversion error for its CEL type; a string converts", () => {
  const cel = sharedCel("cluster");
  const value = (expression: string): unknown => {
    const compiled = cel.compile(expression);
    assert.ok(compiled.ok, expression);
    const r = compiled.value.evaluate({});
    assert.ok(r.ok, expression);
    return r.value;
  };
  assert.deepEqual(
    ["'x'", "null", "true", "1", "1.5", "1u", "b'x'", "[1]", "{'a': 1}"].map((e) => [
      e,
      stringConversionError(value(e)),
    ]),
    [
      ["'x'", undefined],
      ["null", "type conversion error from 'null_type' to 'string'"],
      ["true", "type conversion error from bool to 'string'"],
      ["1", "unsupported type conversion from 'int' to string"],
      ["1.5", "type conversion error from Double to 'string'"],
      ["1u", "unsupported type conversion from 'uint' to string"],
      ["b'x'", "type conversion error from Bytes to 'string'"],
      ["[1]", "type conversion error from list to 'string'"],
      ["{'a': 1}", "type conversion error from map to 'string'"],
    ],
  );
});

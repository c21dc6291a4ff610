import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../../api/json.js";
import { JmesPathError } from "../../types.js";
import { encodingFunctions } from "./encoding.js";
import { call } from "../../../../../test/support/fake-function-context.js";

type Case = readonly [name: string, args: readonly JsonValue[], want: JsonValue];

const cases: readonly Case[] = [
  ["base64_encode", ["Hello"], "SGVsbG8="],
  ["base64_encode", [""], ""],
  ["base64_encode", ["héllo"], "aMOpbGxv"],
  ["base64_encode", ["ab"], "YWI="],
  ["base64_decode", ["SGVsbG8="], "Hello"],
  ["base64_decode", ["aMOpbGxv"], "héllo"],
  ["base64_decode", ["SGVs\nbG8="], "Hello"], // Go skips newlines
  ["base64_decode", ["SGVsbG8=\r\n"], "Hello"],
  ["base64_decode", [""], ""],
  ["base64_decode", ["/w=="], "\ufffd"], // invalid UTF-8 byte
  ["sha256", ["alertmanager"], "sha256(alertmanager)"], // through the Hasher port
  ["sha1", ["Alice & Bob"], "sha1(Alice & Bob)"],
  ["md5", ["Alice & Bob"], "md5(Alice & Bob)"],
];

describe("encoding and hashing functions", () => {
  for (const [name, args, want] of cases) {
    test(`${name}(${JSON.stringify(args[0])}) = ${JSON.stringify(want)}`, () => {
      assert.deepEqual(call(encodingFunctions, name, args), want);
    });
  }

  const errors: ReadonlyArray<readonly [string, string]> = [
    ["SGVsbG8", "illegal base64 data at input byte 4"],
    ["SGVsbG8==", "illegal base64 data at input byte 8"],
    ["SGV$bG8=", "illegal base64 data at input byte 3"],
    ["S===", "illegal base64 data at input byte 1"],
    ["SGVsbG8=x", "illegal base64 data at input byte 8"],
    ["SG=", "illegal base64 data at input byte 3"],
  ];
  for (const [input, message] of errors) {
    test(`base64_decode(${JSON.stringify(input)}) fails with Go's message`, () => {
      assert.throws(
        () => call(encodingFunctions, "base64_decode", [input]),
        (e: unknown) => e instanceof JmesPathError && e.message === message,
      );
    });
  }
});

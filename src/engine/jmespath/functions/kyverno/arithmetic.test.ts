import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../../api/json.js";
import { JmesPathError } from "../../types.js";
import { arithmeticFunctions } from "./arithmetic.js";
import { call } from "../../../../../test/support/fake-function-context.js";

type Case = readonly [name: string, args: readonly JsonValue[], want: JsonValue];

const cases: readonly Case[] = [
  // Scalars are JSON numbers.
  ["add", [1, 2], 3],
  ["add", [0.1, 0.2], 0.30000000000000004],
  ["subtract", [10, 2.5], 7.5],
  ["multiply", [3, 4], 12],
  ["divide", [10, 4], 2.5],
  ["modulo", [10, 3], 1],
  ["modulo", [-10, 3], -1],
  // Strings are quantities first...
  ["add", ["1Gi", "512Mi"], "1536Mi"],
  ["add", ["100m", "1"], "1100m"],
  ["add", ["1m", "1m"], "2m"], // 'm' is milli, not minutes
  ["add", ["1G", "1Gi"], "2073741824"],
  ["add", ["0", "1Gi"], "1Gi"],
  ["subtract", ["10Mi", "5Ki"], "10235Ki"],
  ["subtract", ["1", "1500m"], "-500m"],
  ["multiply", ["100Mi", 2.5], "250Mi"],
  ["multiply", [2, "250m"], "500m"],
  ["multiply", ["1Ki", 0.5], "512"],
  ["multiply", ["1", 1e-7], "100n"],
  ["divide", ["10Mi", "5Ki"], 2048],
  ["divide", ["1", "3"], 1 / 3],
  ["divide", ["1Gi", 3], "357913941"],
  ["divide", ["10", 3], "3"], // truncated at the operands' scale
  ["divide", ["10.0", 3], "3300m"],
  ["divide", ["1", 0.3], "3300m"], // scale of 0.3 is 1 decimal
  ["modulo", ["10Mi", "3Mi"], "1Mi"],
  ["modulo", ["7", "2"], "1"],
  // ...then durations.
  ["add", ["1h", "30s"], "1h0m30s"],
  ["add", ["1.5s", "500ms"], "2s"],
  ["subtract", ["1h", "2h"], "-1h0m0s"],
  ["multiply", ["1h", 1.5], "1h30m0s"],
  ["multiply", [3, "20s"], "1m0s"],
  ["divide", ["1h", "30s"], 120],
  ["divide", ["1h", 7], "8m34.285714285s"],
  ["modulo", ["1h", "25s"], "0s"],
  ["modulo", ["100s", "30s"], "10s"],
  // sum folds add over the array.
  ["sum", [[6, 3, 8]], 17],
  ["sum", [["2Ki", "5Gi", "8Mi"]], "5251074Ki"],
  ["sum", [["2h", "50s", "90s"]], "2h2m20s"],
  ["sum", [["abc"]], "abc"], // a single element comes back untouched
  ["sum", [[5]], 5],
  ["round", [10.125, 2], 10.13],
  ["round", [10.123456, 2], 10.12],
  ["round", [-2.5, 0], -3], // half away from zero, as Go's math.Round
  ["round", [2.5, 0], 3],
  ["round", [1234.5678, 0], 1235],
];

describe("arithmetic functions", () => {
  for (const [name, args, want] of cases) {
    test(`${name}(${args.map((a) => JSON.stringify(a)).join(", ")}) = ${JSON.stringify(want)}`, () => {
      assert.deepEqual(call(arithmeticFunctions, name, args), want);
    });
  }

  const errors: ReadonlyArray<readonly [string, readonly JsonValue[], string]> = [
    ["add", ["1h", 5], "JMESPath function 'add': Types mismatch"],
    ["add", ["1Gi", "1h"], "JMESPath function 'add': Types mismatch"],
    ["add", [1, "1Gi"], "JMESPath function 'add': Types mismatch"],
    ["add", ["abc", 1], "JMESPath function 'add': invalid operands"],
    ["add", [true, 1], "JMESPath function 'add': invalid operands"],
    ["add", [null, 1], "JMESPath function 'add': invalid operands"],
    ["subtract", ["1h", 1], "JMESPath function 'subtract': Types mismatch"],
    ["multiply", ["1Gi", "2Gi"], "JMESPath function 'multiply': Types mismatch"],
    ["multiply", ["1h", "1h"], "JMESPath function 'multiply': Types mismatch"],
    ["divide", [1, 0], "JMESPath function 'divide': Zero divisor passed"],
    ["divide", ["1Gi", "0"], "JMESPath function 'divide': Zero divisor passed"],
    ["divide", ["1Gi", 0], "JMESPath function 'divide': Zero divisor passed"],
    ["divide", ["1h", "0s"], "JMESPath function 'divide': Zero divisor passed"],
    ["divide", [1, "1Gi"], "JMESPath function 'divide': Types mismatch"],
    ["divide", ["1Gi", "1h"], "JMESPath function 'divide': Types mismatch"],
    ["modulo", [10.5, 3], "JMESPath function 'modulo': Non-integer argument(s) passed for modulo"],
    ["modulo", ["1500m", "1"], "JMESPath function 'modulo': Non-integer argument(s) passed for modulo"],
    ["modulo", [10, 0], "JMESPath function 'modulo': Zero divisor passed"],
    ["modulo", ["1h", "0s"], "JMESPath function 'modulo': Zero divisor passed"],
    ["modulo", ["1h", 2], "JMESPath function 'modulo': Types mismatch"],
    ["add", ["1e999999", "1"], "JMESPath function 'add': quantity needs more than 100000 digits"],
    ["sum", [[]], "JMESPath function 'sum': at least one element in the array is required"],
    ["sum", [[1, "1Gi"]], "JMESPath function 'sum': Types mismatch"],
    ["sum", [[1, "x"]], "JMESPath function 'sum': invalid operands"],
    ["round", [1, 1.5], "JMESPath function 'round': Non-integer argument(s) passed for round off"],
    ["round", [1, -1], "JMESPath function 'round': %!d(MISSING) argument is out of bounds (%!d(MISSING))"],
  ];
  for (const [name, args, message] of errors) {
    test(`${name}(${JSON.stringify(args)}) fails: ${message}`, () => {
      assert.throws(
        () => call(arithmeticFunctions, name, args),
        (e: unknown) => e instanceof JmesPathError && e.message === message,
      );
    });
  }
});

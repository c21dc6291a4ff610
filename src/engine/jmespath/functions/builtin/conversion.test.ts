import { functionTable } from "../../../../../test/support/function-table.js";

functionTable("type", [
  ["type(@)", "x", "string"],
  ["type(@)", 1, "number"],
  ["type(@)", true, "boolean"],
  ["type(@)", [], "array"],
  ["type(@)", {}, "object"],
  ["type(@)", null, "null"],
  ["type(&a)", null, { error: "unknown type" }],
]);

functionTable("to_number", [
  ["to_number(@)", 5, 5],
  ["to_number(@)", "1.5", 1.5],
  ["to_number(@)", "-2e3", -2000],
  ["to_number(@)", "0x10p0", 16],
  ["to_number(@)", "1_000", 1000],
  ["to_number(@)", " 1", null],
  ["to_number(@)", "", null],
  ["to_number(@)", "abc", null],
  ["to_number(@)", "1e400", null],
  ["to_number(@)", true, null],
  ["to_number(@)", [1], null],
  ["to_number(@)", null, null],
]);

functionTable("to_string", [
  ["to_string(@)", "x", "x"],
  ["to_string(@)", 1.5, "1.5"],
  ["to_string(@)", 1e21, "1e+21"],
  ["to_string(@)", 1e-7, "1e-7"],
  ["to_string(@)", 100000000, "100000000"],
  ["to_string(@)", true, "true"],
  ["to_string(@)", null, "null"],
  ["to_string(@)", { b: 1, a: [1, "x"] }, '{"a":[1,"x"],"b":1}'],
  ["to_string(@)", ["<a&b>"], '["\\u003ca\\u0026b\\u003e"]'],
  ["to_string(&a)", null, "{}"],
  ["to_string(avg(`[]`))", null, { error: "json: unsupported value: NaN" }],
]);

functionTable("to_array and not_null", [
  ["to_array(@)", [1], [1]],
  ["to_array(@)", 1, [1]],
  ["to_array(@)", null, [null]],
  ["not_null(a, b, c)", { a: null, b: false, c: 1 }, false],
  ["not_null(a, b)", { a: null, b: null }, null],
  ["not_null(missing, b)", { b: 2 }, 2],
  ["not_null()", null, { error: "Invalid arity." }],
]);

import { functionTable } from "../../../../../test/support/function-table.js";

functionTable("contains", [
  ["contains('foobar', 'oba')", null, true],
  ["contains('foobar', 'x')", null, false],
  ["contains('foobar', `1`)", null, false],
  ["contains(@, 'b')", ["a", "b"], true],
  ["contains(@, `2`)", [1, 2], true],
  ["contains(@, '2')", [1, 2], false],
  ["contains(@, `null`)", [1, null], true],
  ["contains(@, `true`)", [false], false],
  ["contains(@, `[1]`)", ["a", [1]], { error: "runtime error: comparing uncomparable type []interface {}" }],
  ["contains(@, `{}`)", [{}], { error: "runtime error: comparing uncomparable type map[string]interface {}" }],
  ["contains(@, `{}`)", ["x", 1], false],
  ["contains(`1`, 'a')", null, { error: 'Invalid type for: 1, expected: []jmespath.JpType{"array", "string"}' }],
]);

functionTable("starts_with and ends_with", [
  ["starts_with('nginx:1.2', 'nginx')", null, true],
  ["starts_with('nginx', 'nginx:1.2')", null, false],
  ["starts_with('x', '')", null, true],
  ["ends_with('image:latest', ':latest')", null, true],
  ["ends_with('image:1', ':latest')", null, false],
  ["ends_with(@, 'x')", 1, { error: 'Invalid type for: 1, expected: []jmespath.JpType{"string"}' }],
]);

functionTable("join", [
  ["join(', ', @)", ["a", "b", "c"], "a, b, c"],
  ["join('-', @)", [], ""],
  ["join('', @)", ["x"], "x"],
  ["join(',', @)", ["a", 1], { error: 'Invalid type for: [a 1], expected: []jmespath.JpType{"array[string]"}' }],
]);

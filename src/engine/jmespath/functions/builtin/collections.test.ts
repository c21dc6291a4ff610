import { functionTable } from "../../../../../test/support/function-table.js";

functionTable("length", [
  ["length(@)", "abc", 3],
  ["length(@)", "héllo", 5],
  ["length(@)", "😀a", 2],
  ["length(@)", [1, 2], 2],
  ["length(@)", { a: 1, b: 2, c: 3 }, 3],
  ["length(@)", "", 0],
  ["length(@)", true, { error: 'Invalid type for: true, expected: []jmespath.JpType{"string", "array", "object"}' }],
]);

functionTable("keys, values, merge", [
  ["keys(@)", { a: 1, b: 2 }, ["a", "b"]],
  ["keys(@)", {}, []],
  ["values(@)", { a: 1, b: [2] }, [1, [2]]],
  ["keys(@)", [1], { error: 'Invalid type for: [1], expected: []jmespath.JpType{"object"}' }],
  ["merge(a, b)", { a: { x: 1, y: 1 }, b: { y: 2 } }, { x: 1, y: 2 }],
  ["merge(a)", { a: { x: 1 } }, { x: 1 }],
  ['merge(`{}`, `{"__proto__": 1}`)', null, JSON.parse('{"__proto__": 1}') as Record<string, number>],
  ["merge(a, `1`)", { a: {} }, { error: 'Invalid type for: 1, expected: []jmespath.JpType{"object"}' }],
  ["merge()", null, { error: "Invalid arity.", kind: "invalid-arity" }],
]);

functionTable("reverse", [
  ["reverse(@)", [1, 2, 3], [3, 2, 1]],
  ["reverse(@)", "abc", "cba"],
  ["reverse(@)", "a😀b", "b😀a"],
  ["reverse(@)", [], []],
  ["reverse(@)", 1, { error: 'Invalid type for: 1, expected: []jmespath.JpType{"array", "string"}' }],
]);

functionTable("sort, max, min", [
  ["sort(@)", [3, 1, 2], [1, 2, 3]],
  ["sort(@)", ["b", "a", "C"], ["C", "a", "b"]],
  ["sort(@)", ["\uFF61", "😀"], ["\uFF61", "😀"]],
  ["sort(@)", [], []],
  [
    "sort(@)",
    [1, "a"],
    { error: 'Invalid type for: [1 a], expected: []jmespath.JpType{"array[string]", "array[number]"}' },
  ],
  ["max(@)", [1, 3, 2], 3],
  ["max(@)", ["a", "c", "b"], "c"],
  ["max(@)", [], null],
  ["min(@)", [1, -3, 2], -3],
  ["min(@)", ["b", "a"], "a"],
  ["min(@)", ["😀", "\uFF61"], "\uFF61"],
  [
    "min(@)",
    [true],
    { error: 'Invalid type for: [true], expected: []jmespath.JpType{"array[number]", "array[string]"}' },
  ],
]);

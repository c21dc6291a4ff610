import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { errorOf, search } from "../../../test/support/jmespath-search.js";

type Row = readonly [expression: string, data: JsonValue, expected: JsonValue];

function table(name: string, rows: readonly Row[]): void {
  describe(name, () => {
    for (const [expression, data, expected] of rows) {
      test(`${expression} on ${JSON.stringify(data)}`, () => {
        assert.deepEqual(search(expression, data), expected);
      });
    }
  });
}

const nested = { a: { b: { c: { d: "value" } } } };
const people = {
  people: [
    { name: "a", age: 30, tags: ["x", "y"] },
    { name: "b", age: 20, tags: ["z"] },
    { name: "c", age: 40, tags: [] },
    { name: "d", age: null, tags: ["w"] },
  ],
};

table("identifiers and sub-expressions", [
  ["foo", { foo: "bar" }, "bar"],
  ["foo.bar", { foo: { bar: "baz" } }, "baz"],
  ["a.b.c.d", nested, "value"],
  ["foo_1", { foo_1: 1 }, 1],
  ["_foo", { _foo: true }, true],
  ["foo.bar", { foo: "not an object" }, null],
  ["foo.bar", { foo: null }, null],
  ["foo.bar", { foo: [{ bar: 1 }] }, null],
  ["foo", [1, 2], null],
  ["foo", "string", null],
  ["foo", { foo: null }, null],
  ["foo", { foo: false }, false],
]);

table("quoted identifiers", [
  ['"foo"', { foo: 1 }, 1],
  ['"with space"', { "with space": 1 }, 1],
  ['"app.kubernetes.io/name"', { "app.kubernetes.io/name": "x" }, "x"],
  ['metadata.labels."app.kubernetes.io/name"', { metadata: { labels: { "app.kubernetes.io/name": "web" } } }, "web"],
  ['"\\u00e9"', { é: 1 }, 1],
  ['"a\\"b"', { 'a"b': 2 }, 2],
  ['"1"', { "1": "one" }, "one"],
  ['""', { "": "empty key" }, "empty key"],
]);

table("index expressions", [
  ["[0]", [1, 2, 3], 1],
  ["[2]", [1, 2, 3], 3],
  ["[3]", [1, 2, 3], null],
  ["[-1]", [1, 2, 3], 3],
  ["[-3]", [1, 2, 3], 1],
  ["[-4]", [1, 2, 3], null],
  ["foo[0].bar", { foo: [{ bar: "x" }] }, "x"],
  ["foo[1][0]", { foo: [[1], [2, 3]] }, 2],
  ["[0]", { "0": "not an array" }, null],
]);

const ten = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
table("slices", [
  ["[0:3]", ten, [0, 1, 2]],
  ["[:3]", ten, [0, 1, 2]],
  ["[7:]", ten, [7, 8, 9]],
  ["[::2]", ten, [0, 2, 4, 6, 8]],
  ["[1::3]", ten, [1, 4, 7]],
  ["[::-1]", ten, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]],
  ["[::-3]", ten, [9, 6, 3, 0]],
  ["[8:2:-2]", ten, [8, 6, 4]],
  ["[-3:]", ten, [7, 8, 9]],
  ["[-3:-1]", ten, [7, 8]],
  ["[:-8]", ten, [0, 1]],
  ["[-100:2]", ten, [0, 1]],
  ["[2:100]", [0, 1, 2, 3], [2, 3]],
  ["[100:]", ten, []],
  ["[5:2]", ten, []],
  ["[-1:-100:-1]", [0, 1, 2], [2, 1, 0]],
  ["[100::-1]", [0, 1, 2], [2, 1, 0]],
  ["[0:2]", "a string", null],
  ["[0:2]", { a: 1 }, null],
  ["foo[:2].bar", { foo: [{ bar: 1 }, { bar: 2 }, { bar: 3 }] }, [1, 2]],
  ["[1:3][0]", [[10], [20], [30]], [20, 30]],
]);

table("list projections", [
  ["people[*].name", people, ["a", "b", "c", "d"]],
  ["people[*].age", people, [30, 20, 40]],
  ["people[*].missing", people, []],
  ["[*]", [1, null, 2], [1, 2]],
  ["[*].a", [{ a: 1 }, { b: 2 }, "x", { a: false }], [1, false]],
  ["people[*].tags[0]", people, ["x", "z", "w"]],
  ["people[*].tags[*]", people, [["x", "y"], ["z"], [], ["w"]]],
  ["people[*].name | [0]", people, "a"],
  ["people[*].name[0]", people, []],
  ["foo[*]", { foo: "not a list" }, null],
  ["foo[*]", { foo: { a: 1 } }, null],
]);

table("object (value) projections", [
  ["*", { a: 1, b: 2 }, [1, 2]],
  ["foo.*", { foo: { a: { x: 1 }, b: { x: 2 } } }, [{ x: 1 }, { x: 2 }]],
  ["foo.*.x", { foo: { a: { x: 1 }, b: { y: 2 }, c: { x: 3 } } }, [1, 3]],
  ["foo.*", { foo: [1, 2] }, null],
  ["*.*", { a: { x: 1 }, b: { y: 2 } }, [[1], [2]]],
  ["*", { a: null, b: 1 }, [1]],
]);

table("flatten projections", [
  ["[]", [1, [2, 3], [[4]], null], [1, 2, 3, [4]]],
  ["[][]", [[1, [2]], [[3]]], [1, 2, 3]],
  ["people[].tags[]", people, ["x", "y", "z", "w"]],
  ["people[].name", people, ["a", "b", "c", "d"]],
  ["foo[]", { foo: "x" }, null],
  ["foo[].bar", { foo: [{ bar: 1 }, [{ bar: 2 }], { baz: 3 }] }, [1, 2]],
  ["[].a", [{ a: 1 }, null, { a: 2 }], [1, 2]],
]);

table("filter projections", [
  ["people[?age > `25`].name", people, ["a", "c"]],
  ["people[?age == `20`].name", people, ["b"]],
  ["people[?age != `20`].name", people, ["a", "c", "d"]],
  ["people[?age].name", people, ["a", "b", "c"]],
  ["people[?!age].name", people, ["d"]],
  ["people[?tags].name", people, ["a", "b", "d"]],
  ["people[?name == 'c'] | [0].age", people, 40],
  ["people[?contains(tags, 'z')].name", people, ["b"]],
  ["people[?age > `25` && age < `35`].name", people, ["a"]],
  ["people[?age < `25` || name == 'd'].name", people, ["b", "d"]],
  ["[?@ > `1`]", [1, 2, 3], [2, 3]],
  ["[?a == `null`]", [{ a: null }, { a: 1 }], [{ a: null }]],
  ["foo[?bar]", { foo: "not a list" }, null],
  ["people[?age > `25`][].name", people, ["a", "c"]],
  ["people[?age > `100`]", people, []],
]);

table("pipes", [
  ["foo | bar", { foo: { bar: 1 } }, 1],
  ["foo[*].bar | [0]", { foo: [{ bar: 1 }, { bar: 2 }] }, 1],
  ["foo | [0] | a", { foo: [{ a: "x" }] }, "x"],
  ["a | b | c", { a: { b: { c: 3 } } }, 3],
  ["@ | length(@)", [1, 2], 2],
]);

table("multi-select lists and hashes", [
  ["[foo, bar]", { foo: 1, bar: 2 }, [1, 2]],
  ["[foo, bar[0]]", { foo: 1, bar: [9] }, [1, 9]],
  ["foo.[a, b]", { foo: { a: 1, b: 2 } }, [1, 2]],
  ["{x: foo, y: bar}", { foo: 1, bar: 2 }, { x: 1, y: 2 }],
  ['{"a b": foo}', { foo: 1 }, { "a b": 1 }],
  ["foo.{a: a}", { foo: { a: 5 } }, { a: 5 }],
  [
    "people[*].{n: name, first: tags[0]}",
    people,
    [
      { n: "a", first: "x" },
      { n: "b", first: "z" },
      { n: "c", first: null },
      { n: "d", first: "w" },
    ],
  ],
  [
    "people[*].[name, age]",
    people,
    [
      ["a", 30],
      ["b", 20],
      ["c", 40],
      ["d", null],
    ],
  ],
  ["[foo, bar]", null, null],
  ["{a: foo}", null, null],
  ["foo.[a]", { foo: null }, null],
  ["{a: @, b: @}", 1, { a: 1, b: 1 }],
  ["{a: `1`, a: `2`}", {}, { a: 2 }],
]);

table("literals and raw strings", [
  ["`true`", null, true],
  ["`false`", null, false],
  ["`null`", { a: 1 }, null],
  ["`1.5`", null, 1.5],
  ["`-3`", null, -3],
  ['`"text"`', null, "text"],
  ['`[1, "a", {"b": null}]`', null, [1, "a", { b: null }]],
  ['`{"a": {"b": [1]}}`', null, { a: { b: [1] } }],
  ["` 1 `", null, 1],
  ['`"with \\` backtick"`', null, "with ` backtick"],
  ["'raw'", null, "raw"],
  ["'it\\'s'", null, "it's"],
  ["'a\\nb'", null, "a\\nb"],
  ["'\\\\d+'", null, "\\\\d+"],
  ["''", null, ""],
  ["'{{ not a variable }}'", null, "{{ not a variable }}"],
  ["'日本'", null, "日本"],
]);

table("current node", [
  ["@", { a: 1 }, { a: 1 }],
  ["@.a", { a: 1 }, 1],
  ["[@]", 5, [5]],
]);

table("not, and, or (truthiness)", [
  ["!foo", { foo: false }, true],
  ["!foo", { foo: "" }, true],
  ["!foo", { foo: [] }, true],
  ["!foo", { foo: {} }, true],
  ["!foo", { foo: null }, true],
  ["!foo", { foo: 0 }, false],
  ["!foo", { foo: " " }, false],
  ["!!foo", { foo: [1] }, true],
  ["a || b", { a: "x", b: "y" }, "x"],
  ["a || b", { a: false, b: "y" }, "y"],
  ["a || b", { a: "", b: "y" }, "y"],
  ["a || b", { a: [], b: "y" }, "y"],
  ["a || b", { a: {}, b: "y" }, "y"],
  ["a || b", { a: 0, b: "y" }, 0],
  ["a || b", { a: null, b: false }, false],
  ["a && b", { a: "x", b: "y" }, "y"],
  ["a && b", { a: "", b: "y" }, ""],
  ["a && b", { a: [], b: "y" }, []],
  ["a && b || c", { a: true, b: false, c: "c" }, "c"],
  ["a || b && c", { a: false, b: true, c: "c" }, "c"],
  ["!a && b", { a: false, b: 1 }, 1],
  ["!a.b", { a: { b: false } }, null],
  ["!(a.b)", { a: { b: false } }, true],
  ["(a || b).c", { a: { c: 1 }, b: { c: 2 } }, 1],
]);

table("comparisons", [
  ["a == b", { a: 1, b: 1 }, true],
  ["a == b", { a: 1, b: 1.0 }, true],
  ["a == b", { a: "1", b: 1 }, false],
  ["a == b", { a: [1, { x: 2 }], b: [1, { x: 2 }] }, true],
  ["a == b", { a: { x: 1, y: 2 }, b: { y: 2, x: 1 } }, true],
  ["a == b", { a: [1, 2], b: [2, 1] }, false],
  ["a == b", { a: null, b: null }, true],
  ["a != b", { a: true, b: false }, true],
  ["a < b", { a: 1, b: 2 }, true],
  ["a <= b", { a: 2, b: 2 }, true],
  ["a > b", { a: 1, b: 2 }, false],
  ["a >= b", { a: -1, b: -1 }, true],
  ["a < b", { a: "a", b: "b" }, null],
  ["a > b", { a: true, b: false }, null],
  ["a < b", { a: 1, b: "2" }, null],
  ["a < b", { a: null, b: 1 }, null],
  ["`1` < `2` == `true`", null, true],
]);

table("expression references and functions", [
  [
    "sort_by(people, &age)[*].name",
    {
      people: [
        { name: "x", age: 3 },
        { name: "y", age: 1 },
      ],
    },
    ["y", "x"],
  ],
  ["map(&a, @)", [{ a: 1 }, { a: 2 }], [1, 2]],
  ["length(@)", "abc", 3],
  ["foo.length(@)", { foo: [1, 2, 3] }, 3],
  ["not_null(a b)", { a: null, b: "z" }, "z"],
  ["not_null(a, b,)", { a: null, b: "z" }, "z"],
]);

describe("names that JavaScript objects inherit are ordinary keys", () => {
  test("present keys are found", () => {
    assert.equal(search("toString", { toString: 1 }), 1);
    assert.equal(search('"__proto__".a', JSON.parse('{"__proto__": {"a": 2}}') as JsonValue), 2);
    assert.equal(search("kind", { kind: "Pod" }), "Pod");
  });

  test("absent ones are missing keys, not inherited values", () => {
    for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf", "kind", "evaluate"]) {
      assert.deepEqual(errorOf(`"${name}"`, {}), { kind: "unknown-key", message: `Unknown key "${name}" in path` });
    }
  });

  test("a __proto__ key in a multi-select hash is an own key", () => {
    const out = search('{"__proto__": a}', { a: 1 }) as Record<string, JsonValue>;
    assert.deepEqual(Object.keys(out), ["__proto__"]);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });
});

describe("evaluation errors", () => {
  const rows: readonly [string, JsonValue, string, string][] = [
    ["unknown_fn(@)", null, "unknown-function", "unknown function: unknown_fn"],
    [
      "length(`1`)",
      null,
      "invalid-type",
      'Invalid type for: 1, expected: []jmespath.JpType{"string", "array", "object"}',
    ],
    ["length(@, @)", "x", "invalid-arity", "incorrect number of args"],
    ["merge()", null, "invalid-arity", "Invalid arity."],
    ["[::0]", [1], "function", "Invalid slice, step cannot be 0"],
    [
      "foo.length(@)",
      { foo: null },
      "invalid-type",
      'Invalid type for: <nil>, expected: []jmespath.JpType{"string", "array", "object"}',
    ],
    ["[1", null, "syntax", "Unknown AST node: ASTEmpty"],
    ["a.@", null, "syntax", "SyntaxError: Expected identifier, lbracket, or lbrace"],
  ];
  for (const [expression, data, kind, message] of rows) {
    test(expression, () => {
      assert.deepEqual(errorOf(expression, data), { kind, message });
    });
  }

  test("a slice with step 0 is only an error when the value is an array", () => {
    assert.equal(search("[::0]", "text"), null);
  });
});

import { functionTable } from "../../../../../test/support/function-table.js";

const items = [
  { name: "b", n: 2 },
  { name: "a", n: 3 },
  { name: "c", n: 1 },
];

functionTable("map", [
  ["map(&name, @)", items, ["b", "a", "c"]],
  ["map(&n, @)", [{ n: 1 }, { m: 2 }], [1, null]],
  ["map(&[n], @)", [{ n: 1 }], [[1]]],
  ["map(&@, `[]`)", null, []],
  [
    "map(&length(@), @)",
    ["ab", 1],
    { error: 'Invalid type for: 1, expected: []jmespath.JpType{"string", "array", "object"}' },
  ],
  ["map(@, &n)", [], { error: 'Invalid type for: [], expected: []jmespath.JpType{"expref"}' }],
]);

functionTable("sort_by", [
  ["sort_by(@, &n)[*].name", items, ["c", "b", "a"]],
  ["sort_by(@, &name)[*].n", items, [3, 2, 1]],
  [
    "sort_by(@, &k)[*].v",
    [
      { k: 1, v: "x" },
      { k: 0, v: "y" },
      { k: 1, v: "z" },
      { k: 0, v: "w" },
    ],
    ["y", "w", "x", "z"],
  ],
  ["sort_by(@, &n)", [], []],
  ["sort_by(@, &missing)", [{ a: 1 }], [{ a: 1 }]],
  ["sort_by(@, &n)", [{ n: 1 }, { n: "a" }], { error: "error in sort_by comparison" }],
  ["sort_by(@, &n)", [{ n: 1 }, { m: 1 }], { error: "error in sort_by comparison" }],
  ["sort_by(@, &n)", [{ m: 1 }, { n: 1 }], { error: "invalid type, must be number of string" }],
  ["sort_by(@, &n)", [{ n: true }, { n: false }], { error: "invalid type, must be number of string" }],
]);

functionTable("max_by and min_by", [
  ["max_by(@, &n).name", items, "a"],
  ["min_by(@, &n).name", items, "c"],
  ["max_by(@, &name).n", items, 1],
  ["min_by(@, &name).n", items, 3],
  ["max_by(@, &n)", [], null],
  ["max_by(@, &missing)", [{ a: 1 }], { a: 1 }],
  ["max_by(@, &n)", [{ n: 1 }, { n: "x" }], { error: "invalid type, must be number" }],
  ["min_by(@, &n)", [{ n: "a" }, { n: 1 }], { error: "invalid type, must be string" }],
  ["max_by(@, &n)", [{ n: 1 }, { m: 2 }], { error: "invalid type, must be number" }],
  ["min_by(@, &n)", [{ n: null }, { n: 1 }], { error: "invalid type, must be number of string" }],
]);

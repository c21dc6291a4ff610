import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../../api/json.js";
import { JmesPathError } from "../../types.js";
import { call } from "../../../../../test/support/fake-function-context.js";
import { structureFunctions } from "./structure.js";

type Case = readonly [name: string, args: readonly JsonValue[], want: JsonValue];

const cases: readonly Case[] = [
  ["parse_json", ['{"a": [1, 2.5, "x", true, null]}'], { a: [1, 2.5, "x", true, null] }],
  ["parse_json", ['["1001","1002"]'], ["1001", "1002"]],
  ["parse_json", [" 42 "], 42],
  ["parse_json", ['"\\u00e9\\ud83d\\ude00"'], "é😀"],
  ["parse_json", ['"\\ud800"'], "\ufffd"],
  ["parse_json", ['{"__proto__": 1}'], JSON.parse('{"__proto__": 1}') as JsonValue],
  [
    "parse_yaml",
    ["species:\n  dog: lab\n  height: 15\n  isGoodBoi: false\n  snacks:\n  - chimken\n"],
    { species: { dog: "lab", height: 15, isGoodBoi: false, snacks: ["chimken"] } },
  ],
  ["parse_yaml", ["a: yes\nb: Off\nc: y\nd: 'yes'\ne: \"on\""], { a: true, b: false, c: true, d: "yes", e: "on" }],
  [
    "parse_yaml",
    ["a: 0x1F\nb: 017\nc: 1_000\nd: 08\ne: 1.5e3\nf: .5\ng: -0b101"],
    { a: 31, b: 15, c: 1000, d: 8, e: 1500, f: 0.5, g: -5 },
  ],
  ["parse_yaml", ["a: ~\nb: null\nc:\nd: NULL"], { a: null, b: null, c: null, d: null }],
  ["parse_yaml", ["a: 2001-12-14\nb: 1:20\nc: 1e400"], { a: "2001-12-14", b: "1:20", c: "1e400" }],
  ["parse_yaml", ["1: a\n1.5: b\ntrue: c\n1e10: d"], { "1": "a", "1.5": "b", true: "c", "1e+10": "d" }],
  [
    "parse_yaml",
    ["base: &b {p: 1, q: 2}\nderived:\n  <<: *b\n  q: 3"],
    { base: { p: 1, q: 2 }, derived: { p: 1, q: 3 } },
  ],
  ["parse_yaml", ["y: 1\nn: 2"], { true: 1, false: 2 }], // YAML 1.1 keys, as go-yaml v2 reads them
  ["parse_yaml", ["a: |\n  line\n"], { a: "line\n" }],
  ["parse_yaml", ["- !!str 12\n- !custom 13"], ["12", "13"]],
  ["parse_yaml", ["a: 1\n---\nb: 2\n"], { a: 1 }],
  ["parse_yaml", [""], null],
  ["lookup", [{ key1: "value1", key2: "value2" }, "key2"], "value2"],
  ["lookup", [{ key1: "value1" }, "missing"], null],
  ["lookup", [{ toString: 1 }, "constructor"], null],
  ["lookup", [["item0", "item1", "item2"], 1], "item1"],
  ["lookup", [["item0"], 5], null],
  ["lookup", [["item0"], -1], null],
  [
    "items",
    [{ team: "apple", organization: "banana" }, "key", "value"],
    [
      { key: "organization", value: "banana" },
      { key: "team", value: "apple" },
    ],
  ],
  [
    "items",
    [[{ team: "apple" }, { organization: "banana" }], "key", "value"],
    [
      { key: 0, value: { team: "apple" } },
      { key: 1, value: { organization: "banana" } },
    ],
  ],
  [
    "items",
    [{ b: 1, B: 2, a: 3 }, "k", "v"],
    [
      { k: "B", v: 2 },
      { k: "a", v: 3 },
      { k: "b", v: 1 },
    ],
  ],
  ["items", [{ a: 1 }, "x", "x"], [{ x: 1 }]],
  [
    "object_from_lists",
    [
      ["KEY", "endpoint"],
      ["123-456-789", "licensing.corp.org"],
    ],
    { KEY: "123-456-789", endpoint: "licensing.corp.org" },
  ],
  ["object_from_lists", [["a", "b"], [1]], { a: 1, b: null }],
  [
    "object_from_lists",
    [
      [1.5, true, "a", "a"],
      [1, 2, 3, 4],
    ],
    { "1.5": 1, true: 2, a: 4 },
  ],
  [
    "label_match",
    [
      { dog: "lab", color: "tan" },
      { color: "tan", dog: "lab" },
    ],
    true,
  ],
  [
    "label_match",
    [
      { dog: "lab", color: "tan" },
      { color: "tan", weight: "chonky", dog: "lab" },
    ],
    true,
  ],
  [
    "label_match",
    [
      { dog: "lab", color: "tan" },
      { color: "black", dog: "lab" },
    ],
    false,
  ],
  ["label_match", [{ a: "1" }, { a: 1 }], false],
  ["label_match", [{}, {}], true],
];

describe("parsing and structure functions", () => {
  for (const [name, args, want] of cases) {
    test(`${name}(${args.map((a) => JSON.stringify(a)).join(", ")})`, () => {
      assert.deepEqual(call(structureFunctions, name, args), want);
    });
  }

  const errors: ReadonlyArray<readonly [string, readonly JsonValue[], string]> = [
    ["parse_json", [""], "unexpected end of JSON input"],
    ["parse_json", ["{a}"], "invalid character 'a' looking for beginning of object key string"],
    ["parse_json", ["[1,]"], "invalid character ']' looking for beginning of value"],
    ["parse_json", ['{"a" 1}'], "invalid character '1' after object key"],
    ["parse_json", ['{"a": 1 "b"}'], "invalid character '\"' after object key:value pair"],
    ["parse_json", ["[1 2]"], "invalid character '2' after array element"],
    ["parse_json", ["01"], "invalid character '1' after top-level value"],
    ["parse_json", ["tru"], "unexpected end of JSON input"],
    ["parse_json", ["trux"], "invalid character 'x' in literal true (expecting 'e')"],
    ["parse_json", ["-"], "unexpected end of JSON input"],
    ["parse_json", ["1."], "unexpected end of JSON input"],
    ["parse_json", ["1.x"], "invalid character 'x' after decimal point in numeric literal"],
    ["parse_json", ['"\\x"'], "invalid character 'x' in string escape code"],
    ["parse_json", ['"a\nb"'], "invalid character '\\n' in string literal"],
    ["parse_json", ["1e400"], "json: cannot unmarshal number 1e400 into Go value of type float64"],
    ["parse_yaml", ["a: .inf"], "json: unsupported value: +Inf"],
    ["lookup", [{ a: 1 }, 1], "JMESPath function 'lookup': argument #2 is not of type String"],
    ["lookup", [[1], "0"], "JMESPath function 'lookup': argument #2 is not of type Number"],
    ["lookup", [[1], 1.5], "JMESPath function 'lookup': argument #2: expected an integer number but got: 1.5"],
    [
      "object_from_lists",
      [[null], [1]],
      "JMESPath function 'object_from_lists': argument #1 is not of type StringArray",
    ],
  ];
  for (const [name, args, message] of errors) {
    test(`${name}(${JSON.stringify(args)}) fails: ${message}`, () => {
      assert.throws(
        () => call(structureFunctions, name, args),
        (e: unknown) => e instanceof JmesPathError && e.message === message,
      );
    });
  }

  test("parse_yaml reports syntax errors with a yaml: prefix and line", () => {
    assert.throws(
      () => call(structureFunctions, "parse_yaml", ["a: [1, 2\nb: c"]),
      (e: unknown) => e instanceof JmesPathError && /^yaml: line \d+: /.test(e.message),
    );
  });
});

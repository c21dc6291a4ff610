/**
 * Where Kyverno's JMESPath (its go-jmespath fork) differs from a stock JMESPath library.
 * Each row gives what a stock library returns ("stock", naming which one when they disagree:
 * the original-spec libraries `jmespath` on npm and jmespath.py, or JMESPath Community Edition)
 * and what Kyverno returns ("kyverno"); the test checks Bylaw gives Kyverno's answer. Rows marked
 * `same` pin a context where the fork's Unknown-key error is swallowed, so the result matches.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { errorOf, search } from "../../../test/support/jmespath-search.js";
import type { FunctionDef } from "./types.js";

type Outcome = { readonly value: JsonValue } | { readonly error: string };

interface Row {
  readonly expr: string;
  readonly data: JsonValue;
  readonly stock: Outcome;
  readonly kyverno: Outcome;
  readonly why: string;
  readonly same?: true;
}

const pod = {
  metadata: { name: "web", labels: { app: "web" } },
  spec: {
    containers: [
      { name: "a", image: "nginx" },
      { name: "b", image: "redis", ports: [80] },
    ],
  },
};

const unknownKey = (key: string): Outcome => ({ error: `Unknown key "${key}" in path` });

const missingKeys: readonly Row[] = [
  {
    expr: "metadata.annotations",
    data: pod,
    stock: { value: null },
    kyverno: unknownKey("annotations"),
    why: "a missing map key is an error",
  },
  { expr: "status", data: pod, stock: { value: null }, kyverno: unknownKey("status"), why: "also at the top level" },
  {
    expr: "status.phase",
    data: pod,
    stock: { value: null },
    kyverno: unknownKey("status"),
    why: "the first missing key is reported",
  },
  {
    expr: "metadata.annotations.team",
    data: pod,
    stock: { value: null },
    kyverno: unknownKey("annotations"),
    why: "it propagates through sub-expressions",
  },
  {
    expr: "spec.volumes[0]",
    data: pod,
    stock: { value: null },
    kyverno: unknownKey("volumes"),
    why: "and through index expressions",
  },
  {
    expr: "metadata.name && metadata.uid",
    data: pod,
    stock: { value: null },
    kyverno: unknownKey("uid"),
    why: "the right side of && is not protected",
  },
  {
    expr: "spec.containers[0].ports",
    data: pod,
    stock: { value: null },
    kyverno: unknownKey("ports"),
    why: "a missing key inside an array element",
  },
  {
    expr: "metadata.annotations || `{}`",
    data: pod,
    stock: { value: {} },
    kyverno: { value: {} },
    why: "|| swallows it (the documented idiom)",
    same: true,
  },
  {
    expr: "metadata.uid && metadata.name",
    data: pod,
    stock: { value: null },
    kyverno: { value: null },
    why: "the left side of && swallows it",
    same: true,
  },
  {
    expr: "metadata.uid == `null`",
    data: pod,
    stock: { value: true },
    kyverno: { value: true },
    why: "comparisons swallow it",
    same: true,
  },
  {
    expr: "metadata.uid < `1`",
    data: pod,
    stock: { value: null },
    kyverno: { value: null },
    why: "ordering comparisons too",
    same: true,
  },
  {
    expr: "!(metadata.uid)",
    data: pod,
    stock: { value: true },
    kyverno: { value: true },
    why: "! swallows it",
    same: true,
  },
  {
    expr: "not_null(metadata.uid, 'none')",
    data: pod,
    stock: { value: "none" },
    kyverno: { value: "none" },
    why: "function arguments swallow it",
    same: true,
  },
  {
    expr: "length(metadata.uid)",
    data: pod,
    stock: { error: "TypeError: length() expected argument 1 to be type 2,3,4 but received type 7 instead." },
    kyverno: { error: 'Invalid type for: <nil>, expected: []jmespath.JpType{"string", "array", "object"}' },
    why: "the argument becomes null, then fails the type check (go-jmespath's text)",
  },
  {
    expr: "spec.containers[?ports].name",
    data: pod,
    stock: { value: ["b"] },
    kyverno: { value: ["b"] },
    why: "filter conditions swallow it",
    same: true,
  },
  {
    expr: "spec.containers[?ports[0] == `80`].name",
    data: pod,
    stock: { value: ["b"] },
    kyverno: { value: ["b"] },
    why: "also inside a filter comparison",
    same: true,
  },
  {
    expr: "spec.containers[*].ports",
    data: pod,
    stock: { value: [[80]] },
    kyverno: { value: [[80]] },
    why: "projections skip elements that miss",
    same: true,
  },
  {
    expr: "spec.containers[].ports[]",
    data: pod,
    stock: { value: [80] },
    kyverno: { value: [80] },
    why: "flatten projections too",
    same: true,
  },
  {
    expr: "metadata.*.missing",
    data: pod,
    stock: { value: [] },
    kyverno: { value: [] },
    why: "object projections too",
    same: true,
  },
  {
    expr: "spec.volumes[*]",
    data: pod,
    stock: { value: null },
    kyverno: { value: null },
    why: "the left side of a projection swallows it",
    same: true,
  },
  {
    expr: "spec.volumes[]",
    data: pod,
    stock: { value: null },
    kyverno: { value: null },
    why: "and of a flatten",
    same: true,
  },
  {
    expr: "spec.volumes[?name]",
    data: pod,
    stock: { value: null },
    kyverno: { value: null },
    why: "and of a filter",
    same: true,
  },
  {
    expr: "status.*",
    data: pod,
    stock: { value: null },
    kyverno: { value: null },
    why: "and of an object projection",
    same: true,
  },
  {
    expr: "metadata.uid | @",
    data: pod,
    stock: { value: null },
    kyverno: { value: null },
    why: "pipes swallow it on both sides",
    same: true,
  },
  {
    expr: "[metadata.uid, metadata.name]",
    data: pod,
    stock: { value: [null, "web"] },
    kyverno: { value: [null, "web"] },
    why: "multi-select lists swallow it",
    same: true,
  },
  {
    expr: "{uid: metadata.uid}",
    data: pod,
    stock: { value: { uid: null } },
    kyverno: { value: { uid: null } },
    why: "multi-select hashes swallow it",
    same: true,
  },
  {
    expr: "map(&ports, spec.containers)",
    data: pod,
    stock: { value: [null, [80]] },
    kyverno: { value: [null, [80]] },
    why: "map's expression swallows it",
    same: true,
  },
  {
    expr: "metadata.name.first",
    data: pod,
    stock: { value: null },
    kyverno: { value: null },
    why: "a field of a non-object is null, not an error",
    same: true,
  },
  {
    expr: "a.b",
    data: { a: null },
    stock: { value: null },
    kyverno: { value: null },
    why: "a present key holding null is not missing",
    same: true,
  },
  {
    expr: "spec.containers.name",
    data: pod,
    stock: { value: null },
    kyverno: { value: null },
    why: "a field of an array is null",
    same: true,
  },
];

const other: readonly Row[] = [
  {
    expr: "length(`1`)[?a]",
    data: null,
    stock: { error: 'Invalid type for: 1, expected: []jmespath.JpType{"string", "array", "object"}' },
    kyverno: { value: null },
    why: "the left side of [?], [] and .* swallows every error, not only a missing key",
  },
  {
    expr: "foo.length(@)",
    data: { foo: null },
    stock: { value: null },
    kyverno: { error: 'Invalid type for: <nil>, expected: []jmespath.JpType{"string", "array", "object"}' },
    why: "the right side of a sub-expression runs even when the left is null (stock: jmespath on npm)",
  },
  {
    expr: "`foo`",
    data: null,
    stock: { value: "foo" },
    kyverno: { error: "invalid character 'o' in literal false (expecting 'a')" },
    why: "no legacy literals: a backtick body must be valid JSON (stock: jmespath on npm, jmespath.py)",
  },
  {
    expr: "$.a",
    data: { a: 1 },
    stock: { value: 1 },
    kyverno: { error: "SyntaxError: Unknown char: '$'" },
    why: "no root reference (stock: Community Edition)",
  },
  {
    expr: "a + b",
    data: { a: 1, b: 2 },
    stock: { value: 3 },
    kyverno: { error: "SyntaxError: Unknown char: '+'" },
    why: "no arithmetic operators (stock: Community Edition)",
  },
  {
    expr: "let $x = a in $x",
    data: { a: 1 },
    stock: { value: 1 },
    kyverno: { error: "SyntaxError: Unknown char: '$'" },
    why: "no let expressions (stock: Community Edition)",
  },
  {
    expr: "'abc'[1:]",
    data: null,
    stock: { value: "bc" },
    kyverno: { value: null },
    why: "no string slicing (stock: Community Edition)",
  },
  {
    expr: "'a' < 'b'",
    data: null,
    stock: { value: true },
    kyverno: { value: null },
    why: "ordering non-numbers gives null (stock: Community Edition compares strings)",
  },
  {
    expr: "to_string(avg(@))",
    data: [],
    stock: { value: "null" },
    kyverno: { error: "json: unsupported value: NaN" },
    why: "avg of [] is NaN (0/0), which cannot be encoded (stock: null)",
  },
  {
    expr: "length('😀')",
    data: null,
    stock: { value: 2 },
    kyverno: { value: 1 },
    why: "length counts code points (stock: jmespath on npm counts UTF-16 units)",
  },
  {
    expr: "reverse('a😀')",
    data: null,
    stock: { value: "\udE00\ud83da" },
    kyverno: { value: "😀a" },
    why: "reverse works on code points (stock: jmespath on npm)",
  },
  {
    expr: "sort(@)",
    data: ["😀", "\uFF61"],
    stock: { value: ["😀", "\uFF61"] },
    kyverno: { value: ["\uFF61", "😀"] },
    why: "strings order by code point, as Go compares UTF-8 bytes (stock: jmespath on npm)",
  },
  {
    expr: "to_string(@)",
    data: { b: "<x>", a: 1 },
    stock: { value: '{"b":"<x>","a":1}' },
    kyverno: { value: '{"a":1,"b":"\\u003cx\\u003e"}' },
    why: "to_string is Go's json.Marshal: sorted keys, HTML characters escaped",
  },
  {
    expr: "to_number('0x10')",
    data: null,
    stock: { value: 16 },
    kyverno: { value: null },
    why: "to_number is Go's ParseFloat (stock: jmespath on npm uses Number())",
  },
  {
    expr: "to_number(' 1')",
    data: null,
    stock: { value: 1 },
    kyverno: { value: null },
    why: "no surrounding spaces in to_number (stock: jmespath on npm)",
  },
  {
    expr: "contains(@, `[1]`)",
    data: [[1]],
    stock: { value: true },
    kyverno: { error: "runtime error: comparing uncomparable type []interface {}" },
    why: "contains uses Go's ==, which cannot compare arrays (Kyverno panics)",
  },
  {
    expr: "not_null(a b)",
    data: { a: null, b: 1 },
    stock: { error: "Syntax error" },
    kyverno: { value: 1 },
    why: "commas between function arguments are optional",
  },
  {
    expr: "{x: a y: b}",
    data: { a: 1, b: 2 },
    stock: { error: "Syntax error" },
    kyverno: { value: { x: 1, y: 2 } },
    why: "commas between hash pairs are optional",
  },
  {
    expr: "'length'(@)",
    data: "abc",
    stock: { error: "Syntax error" },
    kyverno: { value: 3 },
    why: "a raw string can name a function",
  },
  {
    expr: "[0",
    data: [1],
    stock: { error: "Syntax error" },
    kyverno: { error: "Unknown AST node: ASTEmpty" },
    why: "an unclosed bare index compiles and fails when evaluated",
  },
];

function check(rows: readonly Row[]): void {
  for (const row of rows) {
    test(`${row.expr}: ${row.why}`, () => {
      if (row.same === true) assert.deepEqual(row.stock, row.kyverno);
      else assert.notDeepEqual(row.stock, row.kyverno);
      if ("error" in row.kyverno) {
        assert.equal(errorOf(row.expr, row.data)?.message, row.kyverno.error);
      } else {
        assert.deepEqual(search(row.expr, row.data), row.kyverno.value);
      }
    });
  }
}

describe("the fork's Unknown-key error, and where it is swallowed", () => check(missingKeys));
describe("other differences from stock JMESPath", () => check(other));

describe("custom functions replace built-ins", () => {
  const kyvernoSum: FunctionDef = {
    name: "sum",
    args: [{ types: ["array"] }],
    returns: "any",
    description: "A stand-in for Kyverno's sum (quantities and durations).",
    call: ([items]) => `custom:${(items as JsonValue[]).length}`,
  };

  test("stock: sum(['1Gi']) is a type error; with Kyverno's sum registered the custom one runs", () => {
    assert.equal(errorOf("sum(@)", ["1Gi"])?.kind, "invalid-type");
    assert.equal(search("sum(@)", ["1Gi", "2Gi"], { functions: [kyvernoSum] }), "custom:2");
  });

  test("the replacement's own argument spec applies", () => {
    assert.equal(
      errorOf("sum(`1`)", null, { functions: [kyvernoSum] })?.message,
      'Invalid type for: 1, expected: []jmespath.JpType{"array"}',
    );
  });
});

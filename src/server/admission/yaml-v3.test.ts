/** The denial message's YAML is written as Go's yaml.v3 writes it (indent 2), and reads back unchanged. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "yaml";
import { analyzeScalar, analyzeScalarWalk, marshalNestedMap, MEMO_LIMIT, sortKeys, YamlV3Writer } from "./yaml-v3.js";
import { seededRandom } from "../../../test/support/seeded-random.js";

/** One writer for the file, as a server keeps one: texts rendered earlier come from its memo. */
const writer = new YamlV3Writer();
const one = (value: string, key = "r", w: YamlV3Writer = writer): string =>
  w.marshalNestedMap(new Map([["p", new Map([[key, value]])]]));

describe("yaml.v3 scalar styles", () => {
  const cases: [string, string, string][] = [
    ["plain text stays plain", "validation rule 'r' passed.", "validation rule 'r' passed."],
    [
      "': ' needs single quotes",
      "validation error: x. rule r failed at path /a/b/",
      "'validation error: x. rule r failed at path /a/b/'",
    ],
    ["single quotes inside are doubled", "it's: here", "'it''s: here'"],
    ["a trailing colon-space", "ends: ", "'ends: '"],
    ["a leading space", " lead", "' lead'"],
    ["a leading dash-space", "- item", "'- item'"],
    ["a leading indicator", "*star", "'*star'"],
    ["' #' starts a comment", "a # b", "'a # b'"],
    ["'#' inside a word is plain", "a#b", "a#b"],
    ["the empty string", "", '""'],
    ["a bool word", "true", '"true"'],
    ["a YAML 1.1 bool word", "yes", '"yes"'],
    ["null", "null", '"null"'],
    ["an integer", "123", '"123"'],
    ["a float", "1.5e3", '"1.5e3"'],
    ["a hex integer", "0x1F", '"0x1F"'],
    ["a date", "2024-01-02", '"2024-01-02"'],
    ["a version is a string", "1.2.3", "1.2.3"],
    ["digits with underscores read as an integer", "1_000", '"1_000"'],
    ["a leading underscore is text to yaml.v3", "_1", "_1"],
    ["a signed float", "-.5", '"-.5"'],
    [
      "a long message that starts like a number",
      "1 container failed: the image has no tag",
      "'1 container failed: the image has no tag'",
    ],
    ["a tab is escaped", "a\tb", '"a\\tb"'],
    ["a double quote needs no quoting", 'say "hi"', 'say "hi"'],
    ["a control character is escaped", "a\u0001b", '"a\\x01b"'],
    ["an emoji is escaped", "ok 😀", '"ok \\U0001F600"'],
    ["accented letters stay", "café: x", "'café: x'"],
    ["a very long line is not folded", "x ".repeat(100).trim(), "x ".repeat(100).trim()],
  ];
  for (const [name, value, written] of cases) {
    test(name, () => {
      const out = one(value);
      assert.equal(out, `p:\n  r: ${written}\n`);
      assert.deepEqual(parse(out), { p: { r: value } });
    });
  }

  test("key lists are ordered the same when remembered, and lists that join alike stay apart", () => {
    const two = (keys: string[]): string =>
      writer.marshalNestedMap(new Map(keys.map((k) => [k, new Map([["r", "m"]])])));
    const first = two(["b2", "a10", "a9", "B"]);
    assert.equal(first, two(["b2", "a10", "a9", "B"]));
    assert.deepEqual(Object.keys(parse(first) as object), ["B", "a9", "a10", "b2"]);
    // Lists already in yaml.v3's order (not JavaScript's: a9 before a10) are kept; one pair out of it is not.
    assert.deepEqual(Object.keys(parse(two(["B", "a9", "a10", "b2"])) as object), ["B", "a9", "a10", "b2"]);
    assert.deepEqual(Object.keys(parse(two(["B", "a9", "b2", "a10"])) as object), ["B", "a9", "a10", "b2"]);
    // One key holding a NUL, and two keys: each renders its own keys.
    assert.deepEqual(Object.keys(parse(two(["x\u0000y", "z"])) as object), ["x\u0000y", "z"]);
    assert.deepEqual(Object.keys(parse(two(["x", "y\u0000z"])) as object), ["x", "y\u0000z"]);
  });

  test("a text rendered again (remembered, as key and as value) gives the same text; past the memo's size too", () => {
    const first = cases.map(([, value]) => one(value, value));
    // Enough other texts to empty the memo in between, then every case again.
    for (let i = 0; i < 600; i++) one(`filler ${i}: x`, `k${i}`);
    const again = cases.map(([, value]) => one(value, value));
    const twice = cases.map(([, value]) => one(value, value));
    assert.deepEqual(again, first);
    assert.deepEqual(twice, first);
    cases.forEach(([, value], i) => assert.deepEqual(parse(first[i] ?? ""), { p: { [value]: value } }));
    // Each memo stays within its bound however many texts pass through.
    assert.ok(writer.memoSize <= 3 * MEMO_LIMIT, `${writer.memoSize} entries held`);
  });

  test("writers share nothing: one's memo is not another's, and a fresh writer writes the same text", () => {
    const a = new YamlV3Writer();
    const b = new YamlV3Writer();
    const written = cases.map(([, value]) => one(value, `key ${value}`, a));
    assert.ok(a.memoSize > 0);
    assert.equal(b.memoSize, 0, "writing with one writer leaves another empty");
    assert.deepEqual(
      cases.map(([, value]) => one(value, `key ${value}`, b)),
      written,
    );
    assert.deepEqual(
      cases.map(([, value]) => marshalNestedMap(new Map([["p", new Map([[`key ${value}`, value]])]]))),
      written,
    );
  });
  test("a message with newlines is a literal block", () => {
    assert.equal(one("line one\nline two"), "p:\n  r: |-\n    line one\n    line two\n");
    assert.equal(one("a\n\nb\n"), "p:\n  r: |\n    a\n\n    b\n");
    assert.deepEqual(parse(one("a\n\nb\n")), { p: { r: "a\n\nb\n" } });
  });
  test("a key that would read as a bool is quoted", () => {
    assert.equal(one("m", "n"), 'p:\n  "n": m\n');
  });
});

describe("yaml.v3 key order", () => {
  test("digit runs compare as numbers; letters by code; punctuation before letters", () => {
    assert.deepEqual(sortKeys(["check-10", "check-2", "check-1", "checkA", "check_x", "Check"]), [
      "Check",
      "check-1",
      "check-2",
      "check-10",
      "check_x",
      "checkA",
    ]);
  });
  test("letters beyond ASCII are letters, ordered by code point (astral ones whole)", () => {
    assert.deepEqual(sortKeys(["\u{1d49c}", "\u00fc", "z", "\u00e9-rule", "e-rule", "b", "-a"]), [
      "-a",
      "b",
      "e-rule",
      "z",
      "\u00e9-rule",
      "\u00fc",
      "\u{1d49c}",
    ]);
  });
  test("autogen rules sort after the rule they come from", () => {
    assert.deepEqual(sortKeys(["require-labels", "autogen-require-labels", "autogen-cronjob-require-labels"]), [
      "autogen-cronjob-require-labels",
      "autogen-require-labels",
      "require-labels",
    ]);
  });
});

describe("the ASCII fast path of the scalar analysis", () => {
  test("agrees with the character walk on 20,000 generated one-line strings", () => {
    const random = seededRandom(20261122);
    const alphabet = [
      "a",
      "Z",
      "0",
      " ",
      ":",
      "#",
      "-",
      "?",
      ".",
      "'",
      '"',
      "*",
      "[",
      "{",
      ",",
      "|",
      ">",
      "%",
      "@",
      "`",
      "!",
      "&",
      "~",
      "/",
    ];
    for (let i = 0; i < 20_000; i++) {
      const length = 1 + Math.floor(random() * 8);
      let s = "";
      for (let j = 0; j < length; j++) s += alphabet[Math.floor(random() * alphabet.length)] ?? "";
      assert.deepEqual(analyzeScalar(s), analyzeScalarWalk(s), JSON.stringify(s));
    }
  });
});

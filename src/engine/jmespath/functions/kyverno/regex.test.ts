import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../../api/json.js";
import { JmesPathError, type EvaluationBudget } from "../../types.js";
import { call, fakeContext, fn } from "../../../../../test/support/fake-function-context.js";
import { regexFunctions } from "./regex.js";

type Case = readonly [name: string, args: readonly JsonValue[], want: JsonValue];

const cases: readonly Case[] = [
  ["regex_match", ["^[1-7]$", 1], true],
  ["regex_match", ["^[1-7]$", "1"], true],
  ["regex_match", ["^[1-7]$", "8"], false],
  ["regex_match", ["b", "abc"], true], // unanchored
  ["regex_match", ["^b", "abc"], false],
  ["regex_match", ["^1\\.5$", 1.5], true],
  ["regex_match", ["^0\\.1$", 0.1], true], // float32 printing: 0.1, not 0.10000000149011612
  ["regex_match", ["^16777216$", 16777217], true], // float32 precision loss, as Kyverno
  ["regex_match", ["(?i)ABC", "xabcx"], true],
  ["regex_replace_all", ["([0-9])([0-9])", "hello im 42 months old", "${1}1"], "hello im 41 months old"],
  ["regex_replace_all", ["([0-9])([0-9])", "days_37", "${1}0"], "days_30"],
  ["regex_replace_all", ["(\\w+)@(\\w+)", "joe@corp", "$2/$1"], "corp/joe"],
  ["regex_replace_all", ["(a)", "a", "$1x"], ""], // $1x names group "1x", which does not exist
  ["regex_replace_all", ["(a)", "a", "${1}x"], "ax"],
  ["regex_replace_all", ["(?P<first>a)", "a", "[$first]"], "[a]"],
  ["regex_replace_all", ["a", "a", "$$"], "$"],
  ["regex_replace_all", ["(a)|b", "ab", "[$1]"], "[a][]"], // a group that did not take part expands to nothing
  ["regex_replace_all", ["a", "a", "$"], "$"],
  ["regex_replace_all", ["a*", "baaac", "X"], "XbXcX"],
  ["regex_replace_all", ["", "abc", "-"], "-a-b-c-"],
  ["regex_replace_all", ["x*", "😀", "-"], "-😀-"],
  [
    "regex_replace_all",
    ["^docker.io/(.*)$", "docker.io/nginx:latest", "harbor.corp.org/$1"],
    "harbor.corp.org/nginx:latest",
  ],
  ["regex_replace_all", ["[0-9]", 1234, 9], "9999"],
  ["regex_replace_all_literal", ["^[^/]+", "nginx/foo", "myregistry.corp.com"], "myregistry.corp.com/foo"],
  ["regex_replace_all_literal", ["^(\\d{3}-?\\d{2}-?\\d{4})$", "123-45-6789", "redacted"], "redacted"],
  ["regex_replace_all_literal", ["(a)", "a", "$1"], "$1"],
];

describe("regex functions (Go RE2 semantics)", () => {
  for (const [name, args, want] of cases) {
    test(`${name}(${args.map((a) => JSON.stringify(a)).join(", ")}) = ${JSON.stringify(want)}`, () => {
      assert.deepEqual(call(regexFunctions, name, args), want);
    });
  }

  const errors: ReadonlyArray<readonly [string, readonly JsonValue[], string]> = [
    ["regex_match", ["(", "x"], "error parsing regexp: missing closing ): `(`"],
    ["regex_match", ["a(?=b)", "x"], "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"],
    [
      "regex_replace_all",
      ["(", "x", "y"],
      "JMESPath function 'regex_replace_all': error parsing regexp: missing closing ): `(`",
    ],
    [
      "regex_replace_all",
      ["a", null, "y"],
      "JMESPath function 'regex_replace_all': argument #2 is not of type String or Real",
    ],
    [
      "regex_replace_all_literal",
      ["a", "x", null],
      "JMESPath function 'regex_replace_all_literal': argument #3 is not of type String or Real",
    ],
  ];
  for (const [name, args, message] of errors) {
    test(`${name}(${JSON.stringify(args)}) fails with Go's message`, () => {
      assert.throws(
        () => call(regexFunctions, name, args),
        (e: unknown) => e instanceof JmesPathError && e.message === message,
      );
    });
  }

  test("a replacement past the string budget stops with a limit error", () => {
    const budget: EvaluationBudget = { charge: () => undefined, maxStringLength: 100 };
    const ctx = { ...fakeContext(), budget };
    const huge = "x".repeat(60);
    assert.throws(
      () => fn(regexFunctions, "regex_replace_all").call(["a", "aa", huge], ctx),
      (e: unknown) => e instanceof JmesPathError && e.kind === "limit",
    );
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../../api/json.js";
import { JmesPathError } from "../../types.js";
import { call } from "../../../../../test/support/fake-function-context.js";
import { stringFunctions } from "./strings.js";

type Case = readonly [name: string, args: readonly JsonValue[], want: JsonValue];

const cases: readonly Case[] = [
  ["compare", ["a", "b"], -1],
  ["compare", ["b", "a"], 1],
  ["compare", ["a", "a"], 0],
  ["compare", ["Z", "a"], -1],
  ["compare", ["\uffff", "😀"], -1], // byte (code point) order, not UTF-16 order
  ["equal_fold", ["pizza", "PiZzA"], true],
  ["equal_fold", ["pizza", "APPLE"], false],
  ["equal_fold", ["k", "\u212a"], true], // Kelvin sign folds to k, as in Go
  ["equal_fold", ["ab", "a"], false],
  [
    "replace",
    ["Lorem ipsum dolor sit amet foo ipsum bar ipsum", "ipsum", "muspi", 2],
    "Lorem muspi dolor sit amet foo muspi bar ipsum",
  ],
  ["replace", ["aaa", "a", "b", -1], "bbb"],
  ["replace", ["aaa", "a", "b", 0], "aaa"],
  ["replace", ["aaa", "a", "b", 1.9], "baa"],
  ["replace", ["abc", "", "-", 2], "-a-bc"],
  ["replace", ["abc", "", "-", -1], "-a-b-c-"],
  ["replace_all", ["Lorem ipsum dolor sit amet", "ipsum", "muspi"], "Lorem muspi dolor sit amet"],
  ["replace_all", ["x", "y", "z"], "x"],
  ["to_upper", ["hello World"], "HELLO WORLD"],
  ["to_upper", ["straße"], "STRAßE"], // no multi-letter expansion, as Go
  ["to_lower", ["HeLLo"], "hello"],
  ["to_lower", ["İ"], "i"],
  ["trim", ["¡¡¡Hello, Gophers!!!", "!¡"], "Hello, Gophers"],
  ["trim", ["foocorpcom", "mo"], "foocorpc"],
  ["trim", ["foocorpcom", "o"], "foocorpcom"],
  ["trim", ["foocorpcom", "mcof"], "rp"],
  ["trim", ["abc", ""], "abc"],
  ["trim_prefix", ["docker://kubevirt/fedora", "docker://"], "kubevirt/fedora"],
  ["trim_prefix", ["kubevirt/fedora", "docker://"], "kubevirt/fedora"],
  ["split", ["cat,dog,horse", ","], ["cat", "dog", "horse"]],
  ["split", ["abc", ""], ["a", "b", "c"]],
  ["split", ["", ","], [""]],
  ["split", ["", ""], []],
  ["split", ["a😀b", ""], ["a", "😀", "b"]],
  ["truncate", ["foobar", 3], "foo"],
  ["truncate", ["foobar", 10], "foobar"],
  ["truncate", ["foobar", -1], ""],
  ["truncate", ["héllo", 2], "hé"],
  ["truncate", ["foobar", 2.9], "fo"],
  ["to_boolean", ["true"], true],
  ["to_boolean", ["FalsE"], false],
  ["path_canonicalize", ["/var//lib///kubelet"], "/var/lib/kubelet"],
  ["path_canonicalize", ["/var/run/../run/./containerd/containerd.sock"], "/var/run/containerd/containerd.sock"],
  ["path_canonicalize", ["/../x"], "/x"],
  ["path_canonicalize", ["a/../../b"], "../b"],
  ["path_canonicalize", ["./"], "."],
  ["path_canonicalize", [""], ""],
  ["pattern_match", ["158-7?-4*", "158-73-417"], true],
  ["pattern_match", ["158-6?-3*", "158-73-417"], false],
  ["pattern_match", ["1?", 12], true],
  ["pattern_match", ["1.5", 1.5], true],
  ["pattern_match", ["*", ""], true],
];

describe("string functions", () => {
  for (const [name, args, want] of cases) {
    test(`${name}(${args.map((a) => JSON.stringify(a)).join(", ")}) = ${JSON.stringify(want)}`, () => {
      assert.deepEqual(call(stringFunctions, name, args), want);
    });
  }

  const errors: ReadonlyArray<readonly [string, readonly JsonValue[], string]> = [
    [
      "to_boolean",
      ["yes"],
      "JMESPath function 'to_boolean': lowercase argument must be 'true' or 'false' (provided: 'yes')",
    ],
    ["to_boolean", [""], "JMESPath function 'to_boolean': lowercase argument must be 'true' or 'false' (provided: '')"],
    ["pattern_match", ["*", null], "JMESPath function 'regex_match': argument #2 is not of type String or Real"],
  ];
  for (const [name, args, message] of errors) {
    test(`${name}(${JSON.stringify(args)}) fails with Kyverno's message`, () => {
      assert.throws(
        () => call(stringFunctions, name, args),
        (e: unknown) => e instanceof JmesPathError && e.message === message,
      );
    });
  }
});

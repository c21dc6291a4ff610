import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { MatchResources } from "../api/policy.js";
import { checkMatchBlock, matchBlockProblems } from "./check-match-block.js";

const P = "spec.rules[0].match";

describe("checkMatchBlock", () => {
  test("a valid block has no problems", () => {
    assert.deepEqual(
      checkMatchBlock({ any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { app: "x" } } } }] }, P),
      [],
    );
  });

  const cases: [string, MatchResources | undefined, string, string[]][] = [
    ["missing match", undefined, P, [`${P}.resources: match resources not specified`]],
    ["missing exclude is fine", undefined, "spec.rules[0].exclude", []],
    [
      "any and all together",
      { any: [{ resources: { kinds: ["Pod"] } }], all: [{ resources: { kinds: ["Pod"] } }] },
      P,
      [`${P}: Can't specify any and all together`],
    ],
    [
      "any next to legacy resources",
      { any: [{ resources: { kinds: ["Pod"] } }], resources: { kinds: ["Pod"] } },
      P,
      [`${P}: can't specify any/all together with match resources`],
    ],
    [
      "name and names",
      { any: [{ resources: { name: "a", names: ["b"] } }] },
      P,
      [`${P}.any[0].resources: Both name and names can not be specified together`],
    ],
    [
      "selector without requirements",
      { any: [{ resources: { kinds: ["Pod"], selector: {} } }] },
      P,
      [`${P}.any[0].resources.selector: The requirements are not specified in selector`],
    ],
    [
      "wildcard selectors are not checked",
      { any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { "*": "*" } } } }] },
      P,
      [],
    ],
    [
      "match filter without resources",
      { any: [{ subjects: [{ kind: "User", name: "bob" }] }] },
      P,
      [`${P}.any[0].resources: match resources not specified`],
    ],
    [
      "exclude filter without resources is fine",
      { any: [{ subjects: [{ kind: "User", name: "bob" }] }] },
      "spec.rules[0].exclude",
      [],
    ],
    [
      "variables in match",
      { any: [{ resources: { names: ["{{ request.object.metadata.name }}"] } }] },
      P,
      [`${P}: should not have variables in match section`],
    ],
    ["escaped variables are fine", { any: [{ resources: { names: ["\\{{ x }}"] } }] }, P, []],
    [
      "variables in exclude",
      { any: [{ resources: { namespaces: ["{{ns}}"] } }] },
      "spec.rules[0].exclude",
      ["spec.rules[0].exclude: should not have variables in exclude section"],
    ],
    [
      "service account without namespace, bad role",
      {
        any: [{ resources: { kinds: ["Pod"] }, subjects: [{ kind: "ServiceAccount", name: "sa" }], roles: ["admin"] }],
      },
      P,
      [
        `${P}.any[0].subjects[0].namespace: Required value: namespace is required when Kind is ServiceAccount`,
        `${P}.any[0].roles[0]: Invalid value: "admin": Role is expected to be in namespace:name format`,
      ],
    ],
  ];
  for (const [name, block, path, want] of cases) {
    test(name, () => assert.deepEqual(checkMatchBlock(block, path), want));
  }
});

describe("matchBlockProblems", () => {
  test("keeps the path apart from the message", () => {
    assert.deepEqual(matchBlockProblems({ any: [{ resources: { name: "a", names: ["b"] } }] }, P), [
      { path: `${P}.any[0].resources`, message: "Both name and names can not be specified together" },
    ]);
  });
});

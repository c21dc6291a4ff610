import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { anchorToString, containsCondition, parseAnchor, removeAnchor, removeAnchorsFromPath } from "./index.js";

describe("parseAnchor", () => {
  const cases: ReadonlyArray<readonly [string, ReturnType<typeof parseAnchor>]> = [
    ["(name)", { kind: "condition", key: "name" }],
    ["<(image)", { kind: "global", key: "image" }],
    ["X(hostPath)", { kind: "negation", key: "hostPath" }],
    ["+(key)", { kind: "addIfNotPresent", key: "key" }],
    ["=(env)", { kind: "equality", key: "env" }],
    ["^(containers)", { kind: "existence", key: "containers" }],
    [" (name) ", { kind: "condition", key: "name" }],
    ["(a)b)", { kind: "condition", key: "a)b" }],
    ["=(app.kubernetes.io/*)", { kind: "equality", key: "app.kubernetes.io/*" }],
    ["name", undefined],
    ["()", undefined],
    ["=()", undefined],
    ["x(name)", undefined],
    ["Y(name)", undefined],
    ["(name", undefined],
    ["name)", undefined],
    ["((name)", { kind: "condition", key: "(name" }],
    ["(na\nme)", undefined],
    ["", undefined],
  ];
  for (const [input, want] of cases) {
    test(JSON.stringify(input), () => assert.deepEqual(parseAnchor(input), want));
  }
});

describe("anchor helpers", () => {
  test("anchorToString writes each kind back", () => {
    assert.equal(anchorToString("condition", "a"), "(a)");
    assert.equal(anchorToString("global", "a"), "<(a)");
    assert.equal(anchorToString("negation", "a"), "X(a)");
    assert.equal(anchorToString("addIfNotPresent", "a"), "+(a)");
    assert.equal(anchorToString("equality", "a"), "=(a)");
    assert.equal(anchorToString("existence", "a"), "^(a)");
    assert.equal(anchorToString("equality", ""), "");
  });

  test("removeAnchor returns the key and the prefix", () => {
    assert.deepEqual(removeAnchor("=(env)"), { key: "env", prefix: "=(" });
    assert.deepEqual(removeAnchor("(name)"), { key: "name", prefix: "(" });
    assert.deepEqual(removeAnchor("plain"), { key: "plain", prefix: "" });
  });

  test("removeAnchorsFromPath strips every segment", () => {
    assert.equal(removeAnchorsFromPath("/spec/=(volumes)/0/X(hostPath)/"), "/spec/volumes/0/hostPath");
    assert.equal(removeAnchorsFromPath("spec/(containers)"), "spec/containers");
    assert.equal(removeAnchorsFromPath("/"), "/");
  });

  test("containsCondition is true only for () and <()", () => {
    assert.equal(containsCondition(parseAnchor("(a)")), true);
    assert.equal(containsCondition(parseAnchor("<(a)")), true);
    assert.equal(containsCondition(parseAnchor("=(a)")), false);
    assert.equal(containsCondition(undefined), false);
  });
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseTemplateTree } from "./template-tree.js";

test("variables are numbered pass by pass, left to right; a nested one is a piece of its parent", () => {
  const tree = parseTemplateTree("a {{ x.{{ y }} }} b {{ z }}", 100);
  assert.deepEqual(tree.nodes, [
    { inner: [" y "], pass: 1 },
    { inner: [" z "], pass: 1 },
    { inner: [" x.", 0, " "], pass: 2 },
  ]);
  assert.deepEqual(tree.top, ["a ", 2, " b ", 1]);
});

test("touching variables are found in two passes, as Kyverno's scan finds them; escapes are unescaped at the end", () => {
  const tree = parseTemplateTree("{{a}}{{b}} \\{{ c }}", 100);
  assert.deepEqual(tree.nodes, [
    { inner: ["a"], pass: 1 },
    { inner: ["b"], pass: 2 },
  ]);
  assert.deepEqual(tree.top, [0, 1, " {{ c }}"]);
});

test("a text that already holds the marker characters is still split right", () => {
  const tree = parseTemplateTree("\ue000{{ a }}\ue001", 100);
  assert.deepEqual(tree.top, ["\ue000", 0, "\ue001"]);
});

test("nesting deeper than the bound leaves the first unresolved variable named", () => {
  assert.equal(parseTemplateTree("{{ a.{{ b.{{ c }} }} }}", 2).unresolved, "a.{{ b.{{ c }} }}");
});

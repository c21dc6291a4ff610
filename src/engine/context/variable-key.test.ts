import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { setVariable, splitVariableKey } from "./variable-key.js";

describe("splitVariableKey (Kyverno's AddVariable: a CSV record with '.' separators)", () => {
  const ok = (key: string, segments: string[]) => assert.deepEqual(splitVariableKey(key), { ok: true, segments }, key);
  test("plain keys split at every dot", () => {
    ok("team", ["team"]);
    ok("request.object.metadata.name", ["request", "object", "metadata", "name"]);
  });
  test("a quoted segment keeps its dots and slashes", () => {
    ok('request.object.metadata.annotations."a.b/c"', ["request", "object", "metadata", "annotations", "a.b/c"]);
    ok('"x.y".z', ["x.y", "z"]);
    ok('a."say ""hi""".b', ["a", 'say "hi"', "b"]);
  });
  test("empty segments are kept, as CSV fields", () => {
    ok("a..b", ["a", "", "b"]);
    ok("a.", ["a", ""]);
  });
  test("keys Kyverno cannot read are errors naming the key", () => {
    for (const key of ["", 'a"b.c', '"open.b', '"a"x.b']) {
      const r = splitVariableKey(key);
      assert.equal(r.ok, false, key);
    }
  });
  test("setVariable builds the nested path without touching the input", () => {
    const root = { request: { object: { metadata: { name: "n" } } } };
    const out = setVariable(root, 'request.object.metadata.annotations."a.b/c"', "v");
    assert.deepEqual(out, { request: { object: { metadata: { name: "n", annotations: { "a.b/c": "v" } } } } });
    assert.deepEqual(root, { request: { object: { metadata: { name: "n" } } } });
  });
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { splitStringList } from "./string-list-flag.js";

test("each occurrence is split at commas and the occurrences are kept in order", () => {
  assert.deepEqual(splitStringList("resource", ["a.yaml,b.yaml", "c.yaml"]), {
    ok: true,
    items: ["a.yaml", "b.yaml", "c.yaml"],
  });
});

test("an empty occurrence adds nothing; an empty entry between commas is kept as Kyverno keeps it", () => {
  assert.deepEqual(splitStringList("resource", ["", "a,,b"]), { ok: true, items: ["a", "", "b"] });
  assert.deepEqual(splitStringList("resource", undefined), { ok: true, items: [] });
});

test("a quoted entry keeps its commas, and a doubled quote is one quote", () => {
  assert.deepEqual(splitStringList("set", ['"a=x,y",b=1', '"say ""hi"""']), {
    ok: true,
    items: ["a=x,y", "b=1", 'say "hi"'],
  });
});

test("a quote inside an unquoted entry, an unclosed quote or text after a quote is an error naming the flag", () => {
  for (const bad of ['a"b', '"open', '"a"b,c']) {
    const r = splitStringList("resource", [bad]);
    assert.equal(r.ok, false, bad);
    if (!r.ok) assert.match(r.error, /^invalid argument ".*" for --resource: column \d+/, bad);
  }
});

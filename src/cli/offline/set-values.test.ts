import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSetValues } from "./set-values.js";

test("key=value pairs become string variables, trimmed", () => {
  assert.deepEqual(parseSetValues([" team = blue ", "request.operation=UPDATE"]), {
    ok: true,
    values: { team: "blue", "request.operation": "UPDATE" },
    warnings: [],
  });
});

test("request.object.* keys are ignored with a warning; a repeated key keeps the first value", () => {
  const r = parseSetValues(["request.object.metadata.name=x", "team=a", "team=b"]);
  assert.ok(r.ok);
  assert.deepEqual(r.values, { team: "a" });
  assert.equal(r.warnings.length, 2);
  assert.match(r.warnings[0] ?? "", /request\.object\.metadata\.name: ignored/);
});

test("a pair without exactly one '=' or with an empty side is a usage error naming it", () => {
  for (const bad of ["team", "a=b=c", "=x", "x="]) {
    const r = parseSetValues([bad]);
    assert.equal(r.ok, false, bad);
    if (!r.ok) assert.match(r.error, new RegExp(`--set "${bad}"`));
  }
});

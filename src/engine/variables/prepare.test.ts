import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ExpressionCache } from "./expression-cache.js";
import { fakeJmesPath, fakeScope } from "../../../test/support/fake-jmespath.js";
import { prepareSubstitution } from "./prepare.js";
import { substituteAll } from "./substitute-all.js";

const rule = {
  name: "check",
  validate: {
    message: "name {{ request.object.metadata.name }} in {{ request.namespace }}",
    pattern: { metadata: { labels: { "{{ request.object.metadata.name }}": "{{@}}" } } },
  },
  context: [{ name: "cm", variable: { value: "{{ cm.data.{{ request.object.metadata.name }} }}" } }],
};

describe("prepareSubstitution", () => {
  test("compiles every first-pass expression once, plus its DELETE form", () => {
    const jmespath = fakeJmesPath();
    const cache = new ExpressionCache(jmespath);
    const r = prepareSubstitution(rule, cache);
    assert.deepEqual(r, { ok: true, value: { expressions: 2 } });
    assert.deepEqual([...jmespath.compiled].sort(), [
      "request.namespace",
      "request.object.metadata.name",
      "request.oldObject.metadata.name",
    ]);
  });

  test("evaluation afterwards compiles nothing it already knows, on CREATE or DELETE", () => {
    const scope = fakeScope({
      request: { namespace: "ns", object: { metadata: { name: "a" } }, oldObject: { metadata: { name: "b" } } },
    });
    prepareSubstitution(rule, scope.cache);
    const compiled = scope.jmespath.compiled.length;
    assert.deepEqual(substituteAll(rule.validate.message, scope), { ok: true, value: "name a in ns" });
    assert.deepEqual(substituteAll(rule.validate.message, { ...scope, operation: "DELETE" }), {
      ok: true,
      value: "name b in ns",
    });
    assert.equal(scope.jmespath.compiled.length, compiled);
  });

  test("lists each syntax error with the path of its string", () => {
    const cache = new ExpressionCache(fakeJmesPath());
    const r = prepareSubstitution(
      { a: "{{ ok.path }}", b: ["{{ bad..one }}"], c: { "{{ other.. }}": 1 } },
      cache,
      "/spec",
    );
    assert.ok(!r.ok);
    assert.equal(r.error.kind, "jmespath-syntax");
    assert.deepEqual(
      r.error.problems.map((p) => p.path),
      ["/spec/b/0", "/spec/c"],
    );
    assert.ok(
      r.error.problems[0]?.message.startsWith(
        "failed to resolve bad..one at path /spec/b/0: incorrect query bad..one: SyntaxError",
      ),
    );
    assert.ok(r.error.message.includes("bad..one") && r.error.message.includes("other.."));
  });
});

describe("ExpressionCache", () => {
  test("entries made during evaluation are bounded; load-time entries stay", () => {
    const jmespath = fakeJmesPath();
    const cache = new ExpressionCache(jmespath, { maxDynamicEntries: 2 });
    cache.pin(() => cache.compile("pinned"));
    for (const e of ["d1", "d2", "d3", "d1"]) cache.compile(e);
    cache.compile("pinned");
    // d1 was dropped when the dynamic area filled, so it compiled twice; pinned compiled once
    assert.deepEqual(jmespath.compiled, ["pinned", "d1", "d2", "d3", "d1"]);
  });

  test("get returns the compiled expression and throws the syntax error", () => {
    const cache = new ExpressionCache(fakeJmesPath());
    assert.equal(cache.get("a.b").search({ a: { b: 7 } }, { ports: {} as never }), 7);
    assert.throws(
      () => cache.get("a..b"),
      (e: Error) => e.name === "JmesPathError" && e.message.startsWith("SyntaxError"),
    );
  });
});

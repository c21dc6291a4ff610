import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonValue } from "../api/json.js";
import { err, ok, type Result } from "../api/result.js";
import { compileConditions, runConditions } from "./compile.js";

/** Replaces `$name` strings with the named value of the context; `$fail` fails. */
function lookup(v: JsonValue, context: Readonly<Record<string, JsonValue>>): Result<JsonValue> {
  if (typeof v !== "string" || !v.startsWith("{{")) return ok(v);
  const name = v.slice(2, -2).trim();
  return name === "fail" ? err("variable-substitution", "no such variable") : ok(context[name] ?? null);
}

describe("runConditions with a context for the substitute", () => {
  const blocks: unknown[] = [
    {
      any: [
        { key: "{{ a }}", operator: "Equals", value: 1, message: "a is one" },
        { key: "{{ b }}", operator: "AnyIn", value: ["x"] },
      ],
      all: [{ key: "{{ b }}", operator: "NotEquals", value: "{{ a }}", message: "b differs" }],
    },
    [{ key: "{{ a }}", operator: "Equals", value: 2, message: "a is two" }],
    { all: [{ key: "{{ fail }}", operator: "Equals", value: 1 }] },
    { all: [{ key: 1, operator: "Equals", value: "{{ fail }}" }] },
  ];
  for (const context of [
    { a: 1, b: "x" },
    { a: 2, b: "y" },
  ]) {
    for (const block of blocks) {
      test(`${JSON.stringify(block)} in ${JSON.stringify(context)}: the same as a closure over the context`, () => {
        const compiled = compileConditions(block, "deny conditions");
        assert.deepEqual(
          runConditions(compiled, lookup, context),
          runConditions(compiled, (v) => lookup(v, context)),
        );
      });
    }
  }

  test("a substitution failure in the value is reported as such", () => {
    const r = runConditions(compileConditions(blocks[3], "deny conditions"), lookup, {});
    assert.deepEqual(r, {
      ok: false,
      error: {
        kind: "variable-substitution",
        message: "failed to substitute variables in condition value: no such variable",
      },
    });
  });
});

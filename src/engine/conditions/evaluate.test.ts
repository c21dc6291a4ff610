import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import type { Condition, Conditions } from "../api/policy.js";
import { err, ok, type Result } from "../api/result.js";
import { evaluateConditionBlocks, evaluateConditions } from "./evaluate.js";

/** A fake substitution: `{{name}}` reads vars (missing → error); everything else passes through. */
function fakeSubstitute(vars: Record<string, JsonValue>, calls: JsonValue[] = []) {
  return (v: JsonValue): Result<JsonValue> => {
    calls.push(v);
    if (typeof v !== "string") return ok(v);
    const m = /^\{\{\s*(\S+)\s*\}\}$/.exec(v);
    if (m === null) return ok(v);
    const name = m[1] as string;
    if (!(name in vars))
      return err(
        "variable-substitution",
        `failed to resolve ${name} at path : JMESPath query failed: Unknown key "${name}" in path`,
      );
    return ok(vars[name] as JsonValue);
  };
}

const yes = (message?: string): Condition => ({
  key: "a",
  operator: "Equals",
  value: "a",
  ...(message === undefined ? {} : { message }),
});
const no = (message?: string): Condition => ({
  key: "a",
  operator: "Equals",
  value: "b",
  ...(message === undefined ? {} : { message }),
});
const broken: Condition = { key: "{{ missing }}", operator: "Equals", value: "x", message: "broken" };

function run(c: Conditions | undefined, vars: Record<string, JsonValue> = {}) {
  const r = evaluateConditions(c, fakeSubstitute(vars));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("any / all", () => {
  const table: [string, Conditions, boolean, string][] = [
    ["no blocks", {}, true, ""],
    ["empty any counts as absent", { any: [] }, true, ""],
    ["any: one true", { any: [no("n1"), yes("y1"), yes("y2")] }, true, "y1"],
    ["any: none true", { any: [no("n1"), no("n2")] }, false, "n1; n2"],
    ["all: every true", { all: [yes("y1"), yes("y2")] }, true, "y1; y2"],
    ["all: one false", { all: [yes("y1"), no("n1"), no("n2")] }, false, "n1"],
    ["both true", { any: [no("n1"), yes("y1")], all: [yes("y2")] }, true, "y1; y2"],
    [
      "any true, all false keeps the failed any messages",
      { any: [no("n1"), yes("y1")], all: [no("n2")] },
      false,
      "n1; n2",
    ],
    ["any false, all true", { any: [no("n1")], all: [yes("y1")] }, false, "n1"],
    ["empty messages are dropped", { any: [no(), no("n2")] }, false, "n2"],
  ];
  for (const [name, c, met, message] of table) {
    test(name, () => {
      const r = run(c);
      assert.equal(r.met, met);
      assert.equal(r.message, message);
      assert.deepEqual(r.messages, message === "" ? [] : message.split("; "));
    });
  }
  test("any stops at the first true condition", () => {
    const r = run({ any: [yes(), broken] });
    assert.equal(r.met, true);
  });
  test("all stops at the first false condition", () => {
    const r = run({ all: [no(), broken] });
    assert.equal(r.met, false);
  });
  test("the all block is evaluated even when any already failed", () => {
    const r = evaluateConditions({ any: [no()], all: [broken] }, fakeSubstitute({}));
    assert.equal(r.ok, false);
  });
  test("operators are case-insensitive here", () => {
    assert.equal(run({ all: [{ key: "a", operator: "equals", value: "a" }] }).met, true);
  });
  test("variables are substituted in key and value, keeping their type", () => {
    const c: Conditions = { all: [{ key: "{{ n }}", operator: "GreaterThan", value: "{{ limit }}" }] };
    assert.equal(run(c, { n: 5, limit: 3 }).met, true);
    assert.equal(run(c, { n: 2, limit: 3 }).met, false);
  });
});

describe("legacy list", () => {
  test("a bare list means all", () => {
    assert.equal(run([yes(), yes()]).met, true);
    assert.equal(run([yes(), no()]).met, false);
  });
  test("messages: the failed condition's, or every one joined by ';'", () => {
    assert.equal(run([yes("y1"), no("n1"), no("n2")]).message, "n1");
    const met = run([yes("y1"), yes(), yes("y2")]);
    assert.equal(met.message, "y1;y2");
    assert.deepEqual(met.messages, ["y1", "y2"]);
    assert.equal(run([no()]).message, "");
  });
  test("an empty list holds", () => assert.equal(run([]).met, true));
  test("operators must be spelled exactly", () => {
    const r = evaluateConditions([{ key: "a", operator: "equals", value: "a" }], fakeSubstitute({}));
    assert.equal(r.ok, false);
    assert.equal(r.ok ? "" : r.error.message, "failed to parse preconditions: invalid condition operator: equals");
    const d = evaluateConditions([{ key: "a", operator: "Foo", value: "a" }], fakeSubstitute({}), {
      context: "deny conditions",
    });
    assert.equal(d.ok ? "" : d.error.message, "failed to parse deny conditions: invalid condition operator: Foo");
  });
});

describe("errors", () => {
  test("no conditions at all hold", () => {
    assert.equal(run(undefined).met, true);
  });
  test("a failed key substitution", () => {
    const r = evaluateConditions({ all: [broken] }, fakeSubstitute({}));
    assert.equal(r.ok, false);
    assert.equal(
      r.ok ? "" : r.error.message,
      'failed to substitute variables in condition key: failed to resolve missing at path : JMESPath query failed: Unknown key "missing" in path',
    );
  });
  test("a failed value substitution", () => {
    const r = evaluateConditions({ all: [{ key: "a", operator: "Equals", value: "{{ gone }}" }] }, fakeSubstitute({}));
    assert.equal(r.ok ? "" : r.error.message.split(":")[0], "failed to substitute variables in condition value");
  });
  test("the key is substituted before the value, and both before the operator is looked up", () => {
    const calls: JsonValue[] = [];
    const r = evaluateConditions(
      { all: [{ key: "{{ k }}", operator: "Bogus", value: "{{ v }}" }] },
      fakeSubstitute({ k: 1, v: 2 }, calls),
    );
    assert.deepEqual(calls, ["{{ k }}", "{{ v }}"]);
    assert.equal(r.ok, false);
    assert.match(
      r.ok ? "" : r.error.message,
      /^failed to create handler for condition operator: unknown operator "Bogus"/,
    );
  });
  test("keys and values without variables are used as written, not substituted", () => {
    const calls: JsonValue[] = [];
    const r = evaluateConditions(
      {
        all: [
          { key: "a", operator: "Equals", value: "{{ v }}" },
          { key: ["x", { y: 1 }], operator: "AnyIn", value: ["x"] },
        ],
      },
      fakeSubstitute({ v: "a" }, calls),
    );
    assert.deepEqual(calls, ["{{ v }}"]);
    assert.deepEqual(r.ok && r.value.met, true);
  });
  test("malformed blocks are parse errors", () => {
    const r = evaluateConditions({ any: "x" } as unknown as Conditions, fakeSubstitute({}));
    assert.equal(r.ok, false);
    assert.match(r.ok ? "" : r.error.message, /^failed to parse preconditions: /);
  });
});

describe("lists of any/all blocks", () => {
  test("every block must hold; messages of passing blocks join with ';'", () => {
    const r = evaluateConditionBlocks([{ all: [yes("a")] }, { any: [yes("b")] }], fakeSubstitute({}));
    assert.deepEqual(r.ok && [r.value.met, r.value.message], [true, "a;b"]);
  });
  test("the first block that fails decides", () => {
    const r = evaluateConditionBlocks([{ all: [yes("a")] }, { all: [no("b")] }, { all: [broken] }], fakeSubstitute({}));
    assert.deepEqual(r.ok && [r.value.met, r.value.message], [false, "b"]);
  });
});

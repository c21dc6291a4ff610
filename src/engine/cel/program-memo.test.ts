/** One environment compiles an expression text once: policies that repeat it share the program. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ok } from "../api/result.js";
import { createCel } from "./create-cel.js";
import { ProgramMemo } from "./program-memo.js";
import { activation } from "../../../test/support/cel-run.js";
import { COST_LIMIT_MESSAGE, type CelProgram } from "./types.js";

const fake = (expression: string): CelProgram => ({ expression, outputType: "bool", evaluate: () => ok(true) });

describe("ProgramMemo", () => {
  test("compiles a text once per expected type and set of variable names", () => {
    const memo = new ProgramMemo();
    let compiled = 0;
    const compile = (e: string) => () => {
      compiled++;
      return ok(fake(e));
    };
    const a = memo.get("x > 1", { expectType: "bool", variableNames: ["a", "b"] }, compile("x > 1"));
    assert.equal(
      memo.get("x > 1", { expectType: "bool", variableNames: ["b", "a", "a"] }, compile("x > 1")),
      a,
      "the same names in another order",
    );
    assert.equal(compiled, 1);
    memo.get("x > 1", { variableNames: ["a", "b"] }, compile("x > 1"));
    memo.get("x > 1", { expectType: "bool", variableNames: ["a"] }, compile("x > 1"));
    memo.get("x > 2", { expectType: "bool", variableNames: ["a", "b"] }, compile("x > 2"));
    assert.equal(compiled, 4);
  });

  test("keeps at most its limit, dropping the least recently used", () => {
    const memo = new ProgramMemo(2);
    const calls: string[] = [];
    const get = (e: string): void => void memo.get(e, {}, () => (calls.push(e), ok(fake(e))));
    get("a");
    get("b");
    get("a"); // a is now the most recent
    get("c"); // drops b
    get("a");
    get("b");
    assert.deepEqual(calls, ["a", "b", "c", "b"]);
    assert.equal(memo.size, 2);
  });
});

describe("createCel shares programs", () => {
  test("the same expression gives the same program, and each evaluation stands alone (its own cost, its own resource)", () => {
    const cel = createCel({ perCallCostLimit: 1000 });
    const text = "object.items.all(a, object.items.all(b, true))";
    const first = cel.compile(text, { expectType: "bool" });
    const second = cel.compile(text, { expectType: "bool" });
    assert.ok(first.ok && second.ok);
    if (!first.ok || !second.ok) return;
    assert.equal(first.value, second.value);
    const items = (n: number): number[] => Array.from({ length: n }, (_v, i) => i);
    // Over the cost limit for one resource, then well under it for the next: the meter starts again.
    assert.deepEqual(first.value.evaluate(activation({ items: items(100) })), {
      ok: false,
      error: { kind: "cel-cost", message: COST_LIMIT_MESSAGE },
    });
    assert.deepEqual(second.value.evaluate(activation({ items: items(3) })), { ok: true, value: true });
  });

  test("a compile error is the same error each time, and other environments compile for themselves", () => {
    const cel = createCel();
    const bad = cel.compile("object.spec.replicas >");
    assert.ok(!bad.ok);
    assert.deepEqual(cel.compile("object.spec.replicas >"), bad);
    const p = cel.compile("1 == 1");
    const other = createCel().compile("1 == 1");
    assert.ok(p.ok && other.ok);
    if (p.ok && other.ok) assert.notEqual(p.value, other.value);
  });
});

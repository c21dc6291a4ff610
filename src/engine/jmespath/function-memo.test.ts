import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { createJmesPath } from "./create-engine.js";
import { FunctionMemo, type MemoAnswer } from "./function-memo.js";
import { kyvernoFunctions } from "./functions/kyverno/index.js";
import { structureFunctions } from "./functions/kyverno/structure.js";
import { stubPorts } from "../../../test/support/jmespath-search.js";
import { JmesPathError, type FunctionContext } from "./types.js";

const functions = kyvernoFunctions();
const CONFIG = { data: { ClusterConfiguration: "clusterName: prod.local\nnetworking:\n  dnsDomain: cluster.local\n" } };
const TWICE =
  "[data.ClusterConfiguration | parse_yaml(@).clusterName, data.ClusterConfiguration | parse_yaml(@).networking.dnsDomain]";

function run(expression: string, data: JsonValue, maxSteps: number, memo?: FunctionMemo): JsonValue | JmesPathError {
  const ctx: FunctionContext = memo !== undefined ? { ports: stubPorts, memo } : { ports: stubPorts };
  try {
    return createJmesPath({ functions, limits: { maxSteps } }).compile(expression).search(data, ctx);
  } catch (e) {
    if (e instanceof JmesPathError) return e;
    throw e;
  }
}

/** The fewest steps with which `expression` answers (binary search on the budget). */
function leastSteps(expression: string, data: JsonValue, memo: () => FunctionMemo | undefined): number {
  let [lo, hi] = [1, 100_000];
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (run(expression, data, mid, memo()) instanceof JmesPathError) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

describe("FunctionMemo", () => {
  test("the same text parsed twice in one request gives the same answers, and costs the budget what two parses cost", () => {
    assert.deepEqual(run(TWICE, CONFIG, 100_000, new FunctionMemo()), ["prod.local", "cluster.local"]);
    const without = leastSteps(TWICE, CONFIG, () => undefined);
    const withMemo = leastSteps(TWICE, CONFIG, () => new FunctionMemo());
    assert.equal(withMemo, without);
    // A request whose memo already holds the answer still pays for it.
    const warm = new FunctionMemo();
    run(TWICE, CONFIG, 100_000, warm);
    assert.ok(run(TWICE, CONFIG, without - 1, warm) instanceof JmesPathError);
    assert.deepEqual(run(TWICE, CONFIG, without, warm), ["prod.local", "cluster.local"]);
  });

  test("each answer is a copy: a caller that changes its value changes no other answer", () => {
    const memo = new FunctionMemo();
    const ctx: FunctionContext = { ports: stubPorts, memo };
    const parse = structureFunctions.find((f) => f.name === "parse_yaml");
    assert.ok(parse !== undefined);
    const text = "a:\n  b: [1, 2]\n";
    const first = parse.call([text], ctx) as { a: { b: number[] } };
    first.a.b.push(3);
    const second = parse.call([text], ctx) as { a: { b: number[] } };
    assert.deepEqual(second, { a: { b: [1, 2] } });
    second.a.b.length = 0;
    assert.deepEqual(parse.call([text], ctx), { a: { b: [1, 2] } });
    // The function answers from the memo it is given.
    memo.answer(
      "parse_yaml",
      "k: v",
      () => undefined,
      () => ({ ok: true, value: { k: "kept" } }),
    );
    assert.deepEqual(parse.call(["k: v"], ctx), { k: "kept" });
    assert.deepEqual(parse.call(["k: v"], { ports: stubPorts }), { k: "v" });
  });

  test("an answer is computed once per function and text; errors are kept, a computation that throws keeps nothing", () => {
    const memo = new FunctionMemo();
    let computed = 0;
    const charged: number[] = [];
    const ask = (name: string, text: string, answer: MemoAnswer): MemoAnswer =>
      memo.answer(
        name,
        text,
        (n) => charged.push(n),
        (charge) => {
          computed++;
          charge(7);
          return answer;
        },
      );
    assert.deepEqual(ask("parse_yaml", "x: 1", { ok: true, value: { x: 1 } }), { ok: true, value: { x: 1 } });
    assert.deepEqual(ask("parse_yaml", "x: 1", { ok: true, value: { x: 2 } }), { ok: true, value: { x: 1 } });
    assert.equal(computed, 1);
    ask("parse_json", "x: 1", { ok: false, error: "invalid character 'x'" });
    assert.deepEqual(ask("parse_json", "x: 1", { ok: true, value: 0 }), { ok: false, error: "invalid character 'x'" });
    assert.equal(computed, 2);
    assert.deepEqual(charged, [7, 7, 7, 7]);
    const limit = new JmesPathError("limit", "over budget");
    const throwing = (): MemoAnswer =>
      memo.answer(
        "parse_yaml",
        "big: doc",
        () => undefined,
        () => {
          computed++;
          throw limit;
        },
      );
    assert.throws(throwing, limit);
    assert.throws(throwing, limit);
    assert.equal(computed, 4);
  });

  test("answers that cost more than the memo's budget of units are computed each time; cheaper ones are still kept", () => {
    const memo = new FunctionMemo();
    let computed = 0;
    const ask = (text: string, units: number): MemoAnswer =>
      memo.answer(
        "parse_yaml",
        text,
        () => undefined,
        (charge) => {
          computed++;
          charge(units);
          return { ok: true, value: text };
        },
      );
    ask("huge", 1 << 19);
    ask("huge", 1 << 19);
    assert.equal(computed, 2);
    ask("small", 10);
    ask("small", 10);
    assert.equal(computed, 3);
  });

  test("a request keeps at most 64 answers; past that, each is computed when asked", () => {
    const memo = new FunctionMemo();
    let computed = 0;
    const ask = (i: number): MemoAnswer =>
      memo.answer(
        "parse_json",
        String(i),
        () => undefined,
        () => {
          computed++;
          return { ok: true, value: i };
        },
      );
    for (let i = 0; i < 70; i++) ask(i);
    assert.equal(computed, 70);
    ask(3);
    assert.equal(computed, 70);
    ask(66);
    ask(66);
    assert.equal(computed, 72);
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createCel } from "./create-cel.js";
import { MAX_BUILT_BYTES, SIZE_LIMIT_MESSAGE, builtBytes, literalMapBytes } from "./value-size.js";
import { RUNTIME_COST_BUDGET, type CelEvalError, type CostBudget } from "./types.js";

const cel = createCel({ kyverno: "namespaced" });

/** Evaluates `expression` with `variables` (already values) and a fresh or given budget. */
function evaluate(expression: string, budget: CostBudget = { remaining: RUNTIME_COST_BUDGET }, variables = {}) {
  const compiled = cel.compile(expression);
  assert.ok(compiled.ok, compiled.ok ? "" : compiled.error.message);
  return compiled.value.evaluate({ object: {}, variables }, budget);
}

function sizeError(expression: string): CelEvalError {
  const r = evaluate(expression);
  assert.ok(!r.ok, `${expression} succeeded`);
  return r.error;
}

/** `cel.bind` nested n times, each doubling the previous value, then `tail` (which may read x<n>). */
function doubled(seed: string, n: number, tail = `x${n}.size()`): string {
  let e = tail;
  for (let i = n; i >= 1; i--) e = `cel.bind(x${i}, x${i - 1} + x${i - 1}, ${e})`;
  return `cel.bind(x0, ${seed}, ${e})`;
}

describe("the size bound on values CEL builds", () => {
  test("estimates a value's bytes in O(1): characters, bytes, references, a header", () => {
    assert.equal(builtBytes(3n), 0);
    assert.ok(builtBytes("abc") > 3);
    assert.ok(builtBytes(new Array(1000).fill(0)) >= 8000);
    assert.ok(builtBytes(new Uint8Array(1000)) >= 1000);
    assert.ok(literalMapBytes({ 999: 1 }) > literalMapBytes({ a: 1 }), "integer keys weigh V8's backing store");
  });

  test("list doubling stops at the bound with the size limit, a cel-cost error", () => {
    const e = sizeError(doubled("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", 24));
    assert.equal(e.kind, "cel-cost");
    assert.equal(e.message, SIZE_LIMIT_MESSAGE);
    assert.match(e.message, new RegExp(`operation cancelled: actual cost limit exceeded.*${MAX_BUILT_BYTES} bytes`));
  });

  test("bytes doubling stops at the bound (bytes + was not charged before)", () => {
    assert.equal(sizeError(doubled("b'0123456789abcdef0123456789abcdef'", 30)).message, SIZE_LIMIT_MESSAGE);
  });

  test("string doubling stops within the cost limits (`+` on strings is also charged by length)", () => {
    const e = sizeError(doubled("'0123456789abcdef'", 24));
    assert.equal(e.kind, "cel-cost");
    assert.match(e.message, /^operation cancelled: actual cost limit exceeded/);
  });

  test("join of large strings stops at the bound", () => {
    const ok = evaluate(doubled("'0123456789abcdef'", 16));
    assert.ok(ok.ok, "a 1 MiB string is within the bound");
    const e = sizeError(
      doubled("'0123456789abcdef'", 16, "[x16, x16, x16, x16, x16, x16, x16, x16, x16].join(x16).size()"),
    );
    assert.equal(e.message, SIZE_LIMIT_MESSAGE);
  });

  test("map building in a comprehension stops at the bound, integer keys included", () => {
    const e = sizeError("cel.bind(l, lists.range(1000), l.map(x, l.map(y, {y: [x, x, x]}))).size()");
    assert.equal(e.message, SIZE_LIMIT_MESSAGE);
  });

  test("a comprehension building a list per element stops at the bound", () => {
    assert.equal(sizeError("lists.range(100000).map(x, lists.range(100000)).size()").message, SIZE_LIMIT_MESSAGE);
  });

  test("replace is refused before it builds a result past the bound", () => {
    const e = sizeError("cel.bind(s, lists.range(5000).map(i, 'x').join(''), s.replace('', s)).size()");
    assert.equal(e.message, SIZE_LIMIT_MESSAGE);
  });

  test("nested variables share one policy evaluation's bound through the CostBudget", () => {
    const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
    const half = "lists.range(90000).map(i, i)"; // about 0.7 MiB each; the bound holds some 20 of them
    let failed: CelEvalError | undefined;
    for (let i = 0; i < 40 && failed === undefined; i++) {
      const r = evaluate(half, budget);
      if (!r.ok) failed = r.error;
    }
    assert.equal(failed?.message, SIZE_LIMIT_MESSAGE);
    assert.ok((budget.built ?? 0) > MAX_BUILT_BYTES);
  });

  test("an ordinary evaluation is far below the bound", () => {
    const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
    const r = evaluate("lists.range(100).map(i, 'c-' + string(i)).filter(n, n.endsWith('7')).join(',')", budget);
    assert.ok(r.ok);
    assert.ok((budget.built ?? 0) < 64 * 1024);
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { createJmesPath } from "./create-engine.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { errorOf, search, stubContext } from "../../../test/support/jmespath-search.js";
import type { FunctionDef } from "./types.js";

function limitMessage(
  expression: string,
  data: JsonValue = null,
  limits = {},
  functions: readonly FunctionDef[] = [],
): string {
  const error = errorOf(expression, data, { limits, functions });
  assert.equal(error?.kind, "limit", `expected a limit error, got ${JSON.stringify(error)}`);
  return error.message;
}

/** `[@,@] | [@,@] | ...`: a value whose expansion doubles at each step (shared, so cheap to build). */
function doubling(times: number): string {
  return Array.from({ length: times }, () => "[@,@]").join(" | ");
}

describe("expression length", () => {
  test("an expression over maxExpressionLength is refused at compile time", () => {
    const message = limitMessage("a".repeat(101), null, { maxExpressionLength: 100 });
    assert.match(message, /101 characters long; the limit is 100/);
  });

  test("one at the limit compiles", () => {
    assert.equal(search("a".repeat(100), { ["a".repeat(100)]: 1 }, { limits: { maxExpressionLength: 100 } }), 1);
  });
});

describe("nesting depth", () => {
  test("parentheses nested past maxDepth are a limit error, not a stack overflow", () => {
    const deep = "(".repeat(30_000) + "a" + ")".repeat(30_000);
    assert.match(limitMessage(deep), /nested deeper than 256 levels/);
  });

  test("left-nested chains count too (a.b.c... and a || b || ...)", () => {
    assert.match(limitMessage("a" + ".a".repeat(300)), /nested deeper/);
    assert.match(limitMessage(Array.from({ length: 300 }, () => "a").join(" || ")), /nested deeper/);
  });

  test("JSON literals nested past maxDepth are refused", () => {
    assert.match(limitMessage("`" + "[".repeat(300) + "]".repeat(300) + "`"), /literal is nested deeper than 256/);
  });

  test("a chain within the limit works", () => {
    let data: JsonValue = 1;
    for (let i = 0; i < 100; i++) data = { a: data };
    assert.equal(search("a" + ".a".repeat(99), data), 1);
  });
});

describe("evaluation steps", () => {
  const big = Array.from({ length: 1000 }, (_, i) => ({ a: [i] }));

  test("a projection over more elements than the budget stops", () => {
    assert.match(limitMessage("[*].a", big, { maxSteps: 500 }), /budget of 500 steps/);
  });

  test("an exponential flatten of a shared structure stops", () => {
    const expression = `${doubling(40)} | ${"[]".repeat(40)}`;
    assert.match(limitMessage(expression, 1, { maxSteps: 100_000 }), /budget/);
  });

  test("the flatten, filter and object projection sides that swallow errors do not swallow a limit", () => {
    assert.match(limitMessage("([*].a)[]", big, { maxSteps: 500 }), /budget/);
    assert.match(limitMessage("([*].a)[?@]", big, { maxSteps: 500 }), /budget/);
    assert.match(limitMessage("{x: [*].a}.*", big, { maxSteps: 500 }), /budget/);
  });

  test("sort_by and map evaluations count", () => {
    assert.match(limitMessage("sort_by(@, &a[0])", big, { maxSteps: 1500 }), /budget/);
    assert.match(limitMessage("map(&a, @)", big, { maxSteps: 1500 }), /budget/);
  });

  test("the budget is per search: a compiled expression can be reused", () => {
    const engine = createJmesPath({ functions: [], limits: { maxSteps: 5000 } });
    const compiled = engine.compile("[*].a[0]");
    for (let i = 0; i < 5; i++) assert.equal((compiled.search(big, stubContext) as JsonValue[]).length, 1000);
  });
});

describe("string sizes", () => {
  test("to_string of an exponentially shared value stops at maxStringLength", () => {
    assert.match(limitMessage(`to_string(${doubling(40)})`, "x", { maxStringLength: 10_000 }), /longer than 10000/);
  });

  test("join checks the length before building the string", () => {
    const parts = Array.from({ length: 100 }, () => "x");
    assert.match(
      limitMessage("join('----------', @)", parts, { maxStringLength: 500 }),
      /join would produce a string of 1090 characters; the limit is 500/,
    );
  });

  test("a custom function returning a longer string is refused", () => {
    const long: FunctionDef = {
      name: "long",
      args: [],
      returns: "string",
      description: "test",
      call: () => "y".repeat(50),
    };
    assert.match(
      limitMessage("long()", null, { maxStringLength: 10 }, [long]),
      /function long returned a string longer than 10/,
    );
  });

  test("custom functions can charge the budget", () => {
    const costly: FunctionDef = {
      name: "costly",
      args: [],
      returns: "null",
      description: "test",
      call: (_args, ctx) => {
        ctx.budget?.charge(1_000);
        return null;
      },
    };
    assert.match(limitMessage("costly()", null, { maxSteps: 999 }, [costly]), /budget/);
  });
});

describe("hostile data", () => {
  test("comparing data nested deeper than the stack allows is a limit error, not a crash", () => {
    const nest = (): JsonValue => {
      let v: JsonValue = [];
      for (let i = 0; i < 200_000; i++) v = [v];
      return v;
    };
    const message = limitMessage("a == b", { a: nest(), b: nest() });
    assert.match(message, /too large or too deeply nested/);
  });
});

test("the defaults are generous", () => {
  assert.deepEqual(DEFAULT_LIMITS, {
    maxExpressionLength: 65_536,
    maxDepth: 256,
    maxSteps: 10_000_000,
    maxStringLength: 8_388_608,
  });
});

describe("field paths (a.b.c): one step per node", () => {
  test("a.b.c costs five steps: two subexpressions and three fields", () => {
    const data = { a: { b: { c: 1 } } };
    assert.equal(search("a.b.c", data, { limits: { maxSteps: 5 } }), 1);
    assert.match(limitMessage("a.b.c", data, { maxSteps: 4 }), /budget of 4 steps/);
  });

  test("a missing key ends the chain: the fields after it cost nothing", () => {
    // Two subexpressions and the one field that is missing.
    assert.match(errorOf("x.b.c", {}, { limits: { maxSteps: 3 } })?.message ?? "", /Unknown key "x"/);
    assert.match(limitMessage("x.b.c", {}, { maxSteps: 2 }), /budget of 2 steps/);
  });

  test("a non-object part gives null and the rest of the chain still costs a step each", () => {
    assert.equal(search("a.b.c", { a: "text" }, { limits: { maxSteps: 5 } }), null);
    assert.match(limitMessage("a.b.c", { a: "text" }, { maxSteps: 4 }), /budget of 4 steps/);
  });

  test("names an object inherits are not fields of the data", () => {
    assert.match(errorOf("a.toString", { a: {} })?.message ?? "", /Unknown key "toString"/);
    assert.equal(search("a.toString", { a: { toString: "own" } }), "own");
  });
});

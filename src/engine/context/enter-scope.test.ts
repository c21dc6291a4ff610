import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "../api/json.js";
import { createJmesPath } from "../jmespath/index.js";
import type { EnginePorts } from "../ports.js";
import { ExpressionCache, type SubstitutionScope } from "../variables/index.js";
import { enterScope, entersAsIs } from "./enter-scope.js";

function scope(data: JsonObject): SubstitutionScope {
  const jmespath = createJmesPath({ functions: [] });
  return { data, jmespath, fnctx: { ports: {} as EnginePorts }, cache: new ExpressionCache(jmespath) };
}

const data: JsonObject = { request: { operation: "CREATE", object: { metadata: { name: "web" } } } };

describe("entersAsIs", () => {
  const cases: [unknown, unknown, boolean][] = [
    [undefined, undefined, true],
    [null, null, true],
    [[], undefined, true],
    [undefined, { all: [] }, false],
    [undefined, [], false],
    [[{ name: "x", variable: { value: 1 } }], undefined, false],
  ];
  for (const [context, preconditions, asIs] of cases) {
    test(`context ${JSON.stringify(context)}, preconditions ${JSON.stringify(preconditions)}: ${asIs}`, () => {
      assert.equal(entersAsIs(context, preconditions), asIs);
      const vars = scope(data);
      const entered = enterScope(vars, context, preconditions);
      if (asIs) assert.ok(entered.kind === "ready" && entered.vars === vars);
    });
  }
});

describe("enterScope with compiled preconditions", () => {
  const blocks: unknown[] = [
    { all: [{ key: "{{ request.object.metadata.name }}", operator: "Equals", value: "web" }] },
    {
      any: [
        {
          key: "{{ request.object.metadata.name }}",
          operator: "Equals",
          value: "db",
          message: "not {{ request.object.metadata.name }}",
        },
      ],
    },
    { all: [{ key: "{{ request.object.nope.deeper }}", operator: "Equals", value: 1 }] },
    [{ key: 1, operator: "Bogus", value: 1 }],
    "not conditions",
  ];
  for (const preconditions of blocks) {
    test(`${JSON.stringify(preconditions)}: the same outcome as compiling them on the way`, () => {
      const vars = scope(data);
      const compiled = vars.cache.conditions(preconditions, "preconditions");
      const fast = enterScope(vars, undefined, preconditions, compiled);
      const general = scope(data);
      const expected = enterScope(general, undefined, preconditions);
      if (expected.kind === "ready")
        assert.ok(fast.kind === "ready" && fast.vars === vars && expected.vars === general);
      else assert.deepEqual(fast, expected);
    });
  }

  test("the skip message names the failed condition", () => {
    const r = enterScope(scope(data), undefined, blocks[1]);
    assert.deepEqual(r, { kind: "skip", message: "preconditions not met; not {{ request.object.metadata.name }}" });
  });
});

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { createJmesPath } from "./create-engine.js";
import { builtinFunctions } from "./functions/builtin/index.js";
import { stubContext, stubPorts } from "../../../test/support/jmespath-search.js";
import type { FunctionContext, FunctionDef } from "./types.js";

const STANDARD = [
  "abs",
  "avg",
  "ceil",
  "contains",
  "ends_with",
  "floor",
  "join",
  "keys",
  "length",
  "map",
  "max",
  "max_by",
  "merge",
  "min",
  "min_by",
  "not_null",
  "reverse",
  "sort",
  "sort_by",
  "starts_with",
  "sum",
  "to_array",
  "to_number",
  "to_string",
  "type",
  "values",
];

describe("createJmesPath", () => {
  test("the built-ins are exactly the original specification's functions", () => {
    assert.deepEqual(
      builtinFunctions.map((f) => f.name),
      STANDARD,
    );
    for (const f of builtinFunctions) assert.ok(f.description.length > 0, `${f.name} has a description`);
  });

  test("the function table holds built-ins plus custom functions, a custom one replacing a built-in", () => {
    const custom: FunctionDef = {
      name: "to_upper",
      args: [{ types: ["string"] }],
      returns: "string",
      description: "x",
      call: ([s]) => (s as string).toUpperCase(),
    };
    const sum: FunctionDef = {
      name: "sum",
      args: [{ types: ["any"] }],
      returns: "any",
      description: "custom sum",
      call: () => "custom",
    };
    const engine = createJmesPath({ functions: [custom, sum] });
    assert.equal(engine.functions.size, STANDARD.length + 1);
    assert.equal(engine.functions.get("sum"), sum);
    assert.equal(engine.compile("to_upper('a')").search(null, stubContext), "A");
    assert.equal(engine.compile("sum(`1`)").search(null, stubContext), "custom");
  });

  test("functions receive the caller's ports and an evaluation budget", () => {
    let seen: FunctionContext | undefined;
    const probe: FunctionDef = {
      name: "probe",
      args: [],
      returns: "null",
      description: "x",
      call: (_a, ctx) => ((seen = ctx), null),
    };
    createJmesPath({ functions: [probe] })
      .compile("probe()")
      .search(null, stubContext);
    assert.equal(seen?.ports, stubPorts);
    assert.equal(typeof seen?.budget?.charge, "function");
  });

  test("a function declared without arguments accepts any (as go-jmespath does)", () => {
    const now: FunctionDef = {
      name: "now",
      args: [],
      returns: "string",
      description: "x",
      call: (args) => `args:${args.length}`,
    };
    assert.equal(
      createJmesPath({ functions: [now] })
        .compile("now(`1`, `2`)")
        .search(null, stubContext),
      "args:2",
    );
  });

  test("optional arguments may be left out", () => {
    const f: FunctionDef = {
      name: "f",
      args: [{ types: ["string"] }, { types: ["number"], optional: true }],
      returns: "any",
      description: "x",
      call: (args) => args.length,
    };
    const engine = createJmesPath({ functions: [f] });
    assert.equal(engine.compile("f('a')").search(null, stubContext), 1);
    assert.equal(engine.compile("f('a', `2`)").search(null, stubContext), 2);
    assert.throws(() => engine.compile("f()").search(null, stubContext), /incorrect number of args/);
  });

  test("an expression reference handed to a custom function evaluates against any data", () => {
    const apply: FunctionDef = {
      name: "apply",
      args: [{ types: ["expref"] }, { types: ["any"] }],
      returns: "any",
      description: "x",
      call: ([ref, data]) => (ref as { evaluate(d: JsonValue): JsonValue }).evaluate(data as JsonValue),
    };
    const engine = createJmesPath({ functions: [apply] });
    assert.equal(engine.compile("apply(&a.b, @)").search({ a: { b: 7 } }, stubContext), 7);
    assert.throws(() => engine.compile("apply(&a.c, @)").search({ a: {} }, stubContext), /Unknown key "c" in path/);
  });

  test("an expression reference that escapes into the result encodes as {} (as Go does)", () => {
    const engine = createJmesPath({ functions: [] });
    assert.deepEqual(engine.compile("[&a, not_null(&b)]").search({}, stubContext), [{}, {}]);
  });

  test("literals in a compiled expression cannot be changed through a result", () => {
    const compiled = createJmesPath({ functions: [] }).compile('`{"a": [1]}`');
    const out = compiled.search(null, stubContext) as { a: number[] };
    assert.throws(() => out.a.push(2), TypeError);
    assert.deepEqual(compiled.search(null, stubContext), { a: [1] });
  });
});

/** The prepared set operators agree with the general ones on every key, for fixed value lists. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject, JsonValue } from "../api/json.js";
import type { Condition } from "../api/policy.js";
import { createJmesPath } from "../jmespath/index.js";
import type { EnginePorts } from "../ports.js";
import { ExpressionCache } from "../variables/expression-cache.js";
import { substituteAll } from "../variables/substitute-all.js";
import { allIn, allNotIn } from "./all-in.js";
import { anyIn, anyNotIn } from "./any-in.js";
import { compileConditions, runConditions, type CompiledCondition, type CompiledConditions } from "./compile.js";
import { ok } from "../api/result.js";
import { operatorFor } from "./operators.js";
import { PreparedSet, preparedSetOperator } from "./prepared-set.js";
import {
  randomItem,
  randomKey,
  randomList,
  randomOperatorName,
  randomPicker,
} from "../../../test/support/set-operands.js";

const values: JsonValue[][] = [
  ["NET_BIND_SERVICE", ""],
  ["AUDIT_WRITE", "CHOWN", "KILL", "SETUID"],
  ["name", "configMap", "csi", "emptyDir", ""],
  ["app-*", "db-?", "exact"],
  ["*"],
  [1, 2.5, 1000000, true, null],
  [["a", "b"], { k: "v" }],
  [],
];

const keys: JsonValue[] = [
  "NET_BIND_SERVICE",
  "",
  "SYS_ADMIN",
  "app-web",
  "app-",
  "db-1",
  "db-10",
  "exact",
  "ex*",
  "*",
  "?",
  "1",
  "2.5",
  "1e+06",
  "true",
  "<nil>",
  "[a b]",
  "map[k:v]",
  1,
  2.5,
  1000000,
  true,
  false,
  null,
  { k: "v" },
  [],
  ["NET_BIND_SERVICE"],
  ["NET_BIND_SERVICE", "SYS_ADMIN"],
  [""],
  ["CHOWN", "KILL"],
  ["app-x", "db-2"],
  ["c*"],
  [1, true, null],
  [["a", "b"]],
  [{ k: "v" }],
];

const general: Record<string, (k: JsonValue, v: JsonValue) => boolean> = {
  AnyIn: anyIn,
  AllIn: allIn,
  AnyNotIn: anyNotIn,
  AllNotIn: allNotIn,
};

describe("preparedSetOperator", () => {
  for (const [name, operator] of Object.entries(general)) {
    for (const value of values) {
      test(`${name} ${JSON.stringify(value)}: the same answer as the general operator for every key`, () => {
        const prepared = preparedSetOperator(name, value);
        assert.ok(prepared !== undefined);
        for (const key of keys) assert.equal(prepared(key, value), operator(key, value), `key ${JSON.stringify(key)}`);
      });
    }
  }

  test("any spelling of the name, as evaluation accepts", () => {
    assert.ok(preparedSetOperator("anynotin", ["a"]) !== undefined);
    assert.ok(preparedSetOperator("ALLIN", ["a"]) !== undefined);
  });

  test("only for the four set operators, and only for a list value", () => {
    assert.equal(preparedSetOperator("In", ["a"]), undefined);
    assert.equal(preparedSetOperator("Equals", ["a"]), undefined);
    assert.equal(preparedSetOperator("AnyIn", "a"), undefined);
    assert.equal(preparedSetOperator("AnyIn", '["a"]'), undefined);
    assert.equal(preparedSetOperator("AnyIn", "1-5"), undefined);
  });
});

describe("PreparedSet", () => {
  test("finds a key equal to an item, matched by a wildcard item, or matching an item as a wildcard", () => {
    const set = new PreparedSet(["app-*", "exact", 5]);
    assert.equal(set.has("exact"), true);
    assert.equal(set.has("app-web"), true);
    assert.equal(set.has("5"), true);
    assert.equal(set.has("ex?ct"), true);
    assert.equal(set.has("other"), false);
  });
});

describe("compiled conditions use the prepared set for a fixed list", () => {
  test("the result is the general operator's, the key substituted first", () => {
    const compiled = compileConditions(
      { all: [{ key: "{{ caps }}", operator: "AnyNotIn", value: ["NET_BIND_SERVICE", ""] }] },
      "deny conditions",
    );
    for (const caps of [["NET_BIND_SERVICE"], ["SYS_ADMIN"], [], ""]) {
      const r = runConditions(compiled, () => ok(caps));
      assert.deepEqual(r, ok({ met: anyNotIn(caps, ["NET_BIND_SERVICE", ""]), messages: [], message: "" }));
    }
  });
});

describe("generated operands: the prepared operator answers as the general one", () => {
  test("20,000 fixed lists, keys and operator spellings", () => {
    const pick = randomPicker(20261125);
    let yes = 0;
    for (let i = 0; i < 20_000; i++) {
      const name = randomOperatorName(pick);
      const value = randomList(pick);
      const key = pick(4) === 0 ? pick.from(value.length > 0 ? value : [null]) : randomKey(pick);
      const prepared = preparedSetOperator(name, value) ?? assert.fail(`no prepared operator for ${name}`);
      const general = operatorFor(name) ?? assert.fail(`no operator ${name}`);
      const want = general(key, value);
      assert.equal(
        prepared(key, value),
        want,
        `case ${i}: ${name} key ${JSON.stringify(key)} value ${JSON.stringify(value)}`,
      );
      if (want) yes++;
    }
    // Both answers come often enough for the comparison to mean something.
    assert.ok(yes > 4000 && yes < 16_000, `${yes} of 20,000 true`);
  });
});

/** The same compiled conditions with every operator the general one. */
function withGeneralOperators(compiled: CompiledConditions): CompiledConditions {
  const swap = (c: CompiledCondition): CompiledCondition => ({ ...c, operator: operatorFor(c.operatorName) });
  switch (compiled.kind) {
    case "legacy":
      return { ...compiled, list: compiled.list.map(swap) };
    case "any-all":
      return { ...compiled, any: compiled.any.map(swap), all: compiled.all.map(swap) };
    default:
      return compiled;
  }
}

const KEY_EXPRESSIONS = [
  "{{ request.object.x }}",
  "{{ request.object.items[].name }}",
  "{{ request.object.items[].k }}",
  "{{ request.object.x || '' }}",
  "{{ request.object.missing }}",
  "{{ to_string(request.object.x) }}",
  "prefix-{{ request.object.x }}",
];

describe("generated conditions with variables: the prepared set gives the general result", () => {
  test("5,000 condition blocks over generated requests, outcomes and errors alike", () => {
    const pick = randomPicker(1125);
    const jmespath = createJmesPath({ functions: [] });
    const cache = new ExpressionCache(jmespath);
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const condition = (): Condition => ({
        key: pick(5) === 0 ? randomKey(pick) : pick.from(KEY_EXPRESSIONS),
        operator: randomOperatorName(pick),
        value: randomList(pick),
        ...(pick(2) === 0 ? { message: `m${pick(9)}` } : {}),
      });
      const block = (): Condition[] => Array.from({ length: pick(3) }, condition);
      const conditions = pick(4) === 0 ? block() : { any: block(), all: block() };
      const object: JsonObject = {
        items: Array.from({ length: pick(3) }, () => ({ name: randomItem(pick, 0), k: randomKey(pick) })),
      };
      if (pick(5) > 0) object["x"] = randomKey(pick);
      const scope = {
        data: { request: { operation: "CREATE", object } },
        jmespath,
        fnctx: { ports: {} as EnginePorts },
        cache,
      };
      const prepared = compileConditions(conditions, "deny conditions");
      const got = runConditions(prepared, substituteAll, scope);
      const want = runConditions(withGeneralOperators(prepared), substituteAll, scope);
      assert.deepEqual(got, want, `case ${i}: ${JSON.stringify(conditions)} object ${JSON.stringify(object)}`);
      seen.add(got.ok ? `met ${got.value.met}` : "error");
    }
    assert.deepEqual([...seen].sort(), ["error", "met false", "met true"]);
  });
});

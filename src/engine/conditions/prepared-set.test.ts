/** The prepared set operators agree with the general ones on every key, for fixed value lists. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonValue } from "../api/json.js";
import { allIn, allNotIn } from "./all-in.js";
import { anyIn, anyNotIn } from "./any-in.js";
import { compileConditions, runConditions } from "./compile.js";
import { ok } from "../api/result.js";
import { PreparedSet, preparedSetOperator } from "./prepared-set.js";

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
  "NET_BIND_SERVICE", "", "SYS_ADMIN", "app-web", "app-", "db-1", "db-10", "exact", "ex*", "*", "?", "1", "2.5", "1e+06", "true", "<nil>", "[a b]", "map[k:v]",
  1, 2.5, 1000000, true, false, null, { k: "v" },
  [], ["NET_BIND_SERVICE"], ["NET_BIND_SERVICE", "SYS_ADMIN"], [""], ["CHOWN", "KILL"], ["app-x", "db-2"], ["c*"], [1, true, null], [["a", "b"]], [{ k: "v" }],
];

const general: Record<string, (k: JsonValue, v: JsonValue) => boolean> = { AnyIn: anyIn, AllIn: allIn, AnyNotIn: anyNotIn, AllNotIn: allNotIn };

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
    const compiled = compileConditions({ all: [{ key: "{{ caps }}", operator: "AnyNotIn", value: ["NET_BIND_SERVICE", ""] }] }, "deny conditions");
    for (const caps of [["NET_BIND_SERVICE"], ["SYS_ADMIN"], [], ""]) {
      const r = runConditions(compiled, () => ok(caps));
      assert.deepEqual(r, ok({ met: anyNotIn(caps, ["NET_BIND_SERVICE", ""]), messages: [], message: "" }));
    }
  });
});

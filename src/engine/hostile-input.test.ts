/**
 * Hostile input gets a clear error within fixed bounds — never a hang or a crash. Each case runs
 * through the public engine calls. The time bound is the test's own timeout, not a measurement.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "./api/json.js";
import { createEngine } from "./engine.js";
import { fakePorts } from "../../test/support/fake-ports.js";
import { clusterPolicy, pod, podRule } from "../../test/support/builders.js";

const engine = createEngine(fakePorts());
const fnctx = { ports: engine.env.ports };

function nest(levels: number, leaf: JsonValue): JsonObject {
  let v: JsonValue = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v as JsonObject;
}

function validate(doc: JsonObject, resource: JsonObject) {
  const c = engine.compile(doc);
  if (!c.ok) throw new Error(c.problems.map((p) => p.message).join("; "));
  return engine.validate(c.policy, { resource, operation: "CREATE", namespaceLabels: {} }).rules;
}

describe("hostile input", () => {
  test("a catastrophic regex runs in linear time (RE2 semantics)", { timeout: 10_000 }, () => {
    const r = engine.env.jmespath.compile("regex_match('^(a+)+$', s)").search({ s: `${"a".repeat(200_000)}b` }, fnctx);
    assert.equal(r, false);
  });

  test("a string blown up past the size budget is a limit error", () => {
    const expr = engine.env.jmespath.compile("join('', [s, s, s, s, s, s, s, s, s, s])");
    assert.throws(() => expr.search({ s: "x".repeat(2_000_000) }, fnctx), /limit is \d+/);
  });

  test("a policy nested deeper than the limit is refused with a message", () => {
    const doc = clusterPolicy("deep", [podRule("r", { pattern: nest(5000, "?*") })]);
    const c = engine.compile(doc);
    assert.equal(c.ok, false);
    assert.match(c.ok ? "" : (c.problems[0]?.message ?? ""), /nested deeper than 1000 levels/);
  });

  test("a resource nested deeper than the limit gives error results, not a crash", () => {
    const doc = clusterPolicy("p", [podRule("r", { pattern: { metadata: { name: "?*" } } })]);
    const rules = validate(doc, { ...pod({ name: "x" }), spec: nest(50_000, 1) });
    assert.deepEqual(
      rules.map((r) => r.status),
      ["error"],
    );
    assert.match(rules[0]?.message ?? "", /nested deeper than 1000 levels/);
  });

  test("deep but allowed nesting evaluates (or errors) without crashing", { timeout: 10_000 }, () => {
    const doc = clusterPolicy("p", [
      podRule("r", {
        deny: { conditions: { any: [{ key: "{{ request.object.spec }}", operator: "Equals", value: "x" }] } },
      }),
    ]);
    const rules = validate(doc, { ...pod({ name: "x" }), spec: nest(990, 1) });
    assert.equal(rules.length, 1);
    assert.ok(["pass", "error"].includes(rules[0]?.status ?? ""), rules[0]?.message);
  });

  test("a variable that expands into itself stops with an error", { timeout: 10_000 }, () => {
    const doc = clusterPolicy("p", [
      podRule(
        "r",
        {
          deny: { conditions: { any: [{ key: "{{ a }}", operator: "Equals", value: "x" }] } },
        },
        { context: [{ name: "a", variable: { value: "{{ to_string('{{ a }}') }}" } }] },
      ),
    ]);
    const rules = validate(doc, pod({ name: "x" }));
    assert.equal(rules[0]?.status, "error");
  });

  test("an expression longer than the limit is a syntax-time error", () => {
    assert.throws(() => engine.env.jmespath.compile(`a${".b".repeat(100_000)}`), /limit/);
  });
});

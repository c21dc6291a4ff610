/**
 * Policy content is tenant input in the webhook: one rule cannot make the engine build gigabytes.
 * Context entries add at most 2 MiB to a rule's context (Kyverno's limit), and one substitution
 * builds at most a 2 Mi-character string; past either the rule is an error naming the limit.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { clusterPolicy, pod, podRule } from "../../../test/support/builders.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { jsonSizeUpTo, MAX_CONTEXT_BYTES } from "./context-size.js";

const engine = createEngine(fakePorts());
const seed = "abcdefgh";

function ruleResult(context: JsonObject[], deny: JsonObject, message = "x"): { status: string; message: string } {
  const compiled = engine.compile(clusterPolicy("p", [podRule("r", { message, deny }, { context })]));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const r = engine.validate(compiled.policy, {
    resource: pod({ name: "web" }),
    operation: "CREATE",
    namespaceLabels: {},
  }).rules[0];
  assert.ok(r !== undefined);
  return r;
}
/** A key that builds 3 Mi characters: the substitution is an error, so the condition is. */
const tripled = (v: string): JsonObject => ({
  conditions: { any: [{ key: `{{ ${v} }}{{ ${v} }}{{ ${v} }}`, operator: "Equals", value: "" }] },
});
const denyIfEmpty = (v: string): JsonObject => ({
  conditions: { any: [{ key: `{{ length(${v}) }}`, operator: "Equals", value: 0 }] },
});

describe("context size", () => {
  test("entries that double the one before stop at 2 MiB with an error naming the entry", () => {
    const context: JsonObject[] = [{ name: "p0", variable: { value: seed } }];
    for (let i = 1; i <= 40; i++)
      context.push({ name: `p${i}`, variable: { value: `{{ p${i - 1} }}{{ p${i - 1} }}` } });
    const r = ruleResult(context, denyIfEmpty("p40"));
    assert.equal(r.status, "error");
    assert.match(r.message, /context entry p1[78]: the context entries of this rule add more than 2097152 bytes/);
  });

  test("many entries, each under the limit, are capped in total (JMESPath join)", () => {
    const context: JsonObject[] = [{ name: "big", variable: { value: "x".repeat(300_000) } }];
    for (let i = 0; i < 600; i++) context.push({ name: `c${i}`, variable: { jmesPath: "join('', [big, big])" } });
    const r = ruleResult(context, denyIfEmpty("c599"));
    assert.equal(r.status, "error");
    assert.match(r.message, /context entry c2: the context entries of this rule add more than/);
  });

  test("a rule whose context stays under 2 MiB is evaluated", () => {
    const context: JsonObject[] = [{ name: "big", variable: { value: "x".repeat(1_500_000) } }];
    assert.equal(ruleResult(context, denyIfEmpty("big")).status, "pass");
  });

  test("a message that repeats a large variable is not built past 2 Mi characters", () => {
    const context: JsonObject[] = [{ name: "big", variable: { value: "y".repeat(1_000_000) } }];
    const r = ruleResult(
      context,
      { conditions: { any: [{ key: 1, operator: "Equals", value: 1 }] } },
      "{{ big }}{{ big }}{{ big }}",
    );
    assert.equal(r.status, "fail");
    assert.ok(r.message.length < 10_000, `the message is not the 3 MB string (${r.message.length} characters)`);
  });

  test("a condition key that repeats a large variable stops at 2 Mi characters with an error", () => {
    const context: JsonObject[] = [{ name: "big", variable: { value: "y".repeat(1_000_000) } }];
    const r = ruleResult(context, tripled("big"));
    assert.equal(r.status, "error");
    assert.match(r.message, /longer than 2097152 characters/);
  });

  test("the size estimate stops counting past its limit", () => {
    assert.equal(jsonSizeUpTo({ a: ["xy", 12, true, null] }, MAX_CONTEXT_BYTES), 2 + 1 + 4 + 2 + 4 + 4 + 2 + 4 + 4);
    const wide: JsonObject = {};
    for (let i = 0; i < 1000; i++) wide[`k${i}`] = "z".repeat(100);
    assert.ok(jsonSizeUpTo(wide, 1000) < 1200, "a wide object is not walked past the limit");
    assert.ok(
      jsonSizeUpTo(
        Array.from({ length: 100 }, () => "z".repeat(100)),
        1000,
      ) > 1000,
    );
  });
});

/**
 * An Interruption passed with a call stops long evaluations inside rules: a foreach over 100k
 * elements, a pattern over a 100k-item list, a JMESPath query over a huge list, a Pod Security check
 * of 100k containers. The call throws EvaluationInterrupted at the check that tripped, not a result.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import type { Interruption } from "../ports.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, podRule } from "../../../test/support/builders.js";
import { CONTEXT_READ_UNITS, EvaluationInterrupted, isInterruption, TICKS_PER_CHECK } from "./index.js";

const N = 100_000;
const bigPod: JsonObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "big", namespace: "default" },
  spec: { containers: Array.from({ length: N }, (_, i) => ({ name: `c${i}`, image: `nginx:${i}` })) },
};

/** Trips on its `tripAt`-th check; counts the checks made. */
function countingInterruption(tripAt: number, ticksPerCheck?: number): Interruption & { checks: number } {
  const i = {
    ticks: 0,
    ...(ticksPerCheck !== undefined ? { ticksPerCheck } : {}),
    checks: 0,
    check() {
      i.checks++;
      if (i.checks >= tripAt) throw new EvaluationInterrupted("review deadline passed");
    },
  };
  return i;
}

const heavyRules: Record<string, JsonObject> = {
  "a foreach over every container": podRule("each", {
    message: "no container may be named x",
    foreach: [
      {
        list: "request.object.spec.containers",
        deny: { conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "x" }] } },
      },
    ],
  }),
  "a pattern over the container list": podRule("pattern", {
    message: "images need a tag",
    pattern: { spec: { containers: [{ image: "*:*" }] } },
  }),
  "a JMESPath query over the container list": podRule("jmespath", {
    message: "too many",
    deny: {
      conditions: {
        any: [
          { key: "{{ length(request.object.spec.containers[?name != 'x'].image) }}", operator: "Equals", value: -1 },
        ],
      },
    },
  }),
  "a Pod Security check of every container": podRule("pss", {
    podSecurity: { level: "restricted", version: "latest" },
  }),
};

describe("interrupting an evaluation", () => {
  for (const [what, rule] of Object.entries(heavyRules)) {
    test(`${what} stops at the interruption's budget with EvaluationInterrupted`, () => {
      const engine = createEngine(fakePorts());
      const compiled = engine.compile(clusterPolicy("heavy", [rule]));
      assert.ok(compiled.ok);
      const request = { resource: bigPod, operation: "CREATE" as const, namespaceLabels: {} };
      // Unbounded, the rule runs to the end and gives a result.
      const full = engine.validate(compiled.policy, request);
      assert.equal(full.rules.length, 1);
      assert.notEqual(full.rules[0]?.status, "error");
      // A check that never trips changes nothing, and is called for work this size.
      const never = countingInterruption(Number.POSITIVE_INFINITY);
      assert.deepEqual(engine.validate(compiled.policy, request, never), full);
      assert.ok(never.checks >= 3, `only ${never.checks} checks over ${N} containers`);
      // Tripping on the third check throws the interruption itself, and nothing checks after it.
      const bounded = countingInterruption(3);
      assert.throws(
        () => engine.validate(compiled.policy, request, bounded),
        (e: unknown) => isInterruption(e) && e.message === "review deadline passed",
      );
      assert.equal(bounded.checks, 3);
      // The engine is usable afterwards, with or without an interruption.
      assert.deepEqual(engine.validate(compiled.policy, request), full);
    });
  }

  test("small evaluations never call check(): the clock is read every TICKS_PER_CHECK units", () => {
    const engine = createEngine(fakePorts());
    const compiled = engine.compile(
      clusterPolicy("small", [heavyRules["a foreach over every container"] as JsonObject]),
    );
    assert.ok(compiled.ok);
    const small = { ...bigPod, spec: { containers: [{ name: "a", image: "nginx:1" }] } };
    const i = countingInterruption(1);
    const r = engine.validate(compiled.policy, { resource: small, operation: "CREATE", namespaceLabels: {} }, i);
    assert.equal(r.rules[0]?.status, "pass");
    assert.equal(i.checks, 0);
    assert.ok(TICKS_PER_CHECK >= 256);
    // The work is counted across calls with the same interruption: enough small calls do check.
    const counting = countingInterruption(Number.POSITIVE_INFINITY);
    for (let k = 0; k < TICKS_PER_CHECK; k++)
      engine.validate(compiled.policy, { resource: small, operation: "CREATE", namespaceLabels: {} }, counting);
    assert.equal(counting.checks, 1);
  });

  test("a check that throws something else still stops the call as an EvaluationInterrupted", () => {
    const engine = createEngine(fakePorts());
    const compiled = engine.compile(
      clusterPolicy("heavy", [heavyRules["a JMESPath query over the container list"] as JsonObject]),
    );
    assert.ok(compiled.ok);
    const odd: Interruption = {
      ticks: 0,
      check() {
        throw new Error("clock says stop");
      },
    };
    assert.throws(
      () => engine.validate(compiled.policy, { resource: bigPod, operation: "CREATE", namespaceLabels: {} }, odd),
      (e: unknown) => isInterruption(e) && e.message === "clock says stop",
    );
  });

  test("an interruption's own ticksPerCheck sets how often it is checked", () => {
    const engine = createEngine(fakePorts());
    const compiled = engine.compile(
      clusterPolicy("heavy", [heavyRules["a foreach over every container"] as JsonObject]),
    );
    assert.ok(compiled.ok);
    const request = { resource: bigPod, operation: "CREATE" as const, namespaceLabels: {} };
    const coarse = countingInterruption(Number.POSITIVE_INFINITY);
    const fine = countingInterruption(Number.POSITIVE_INFINITY, 128);
    assert.deepEqual(
      engine.validate(compiled.policy, request, fine),
      engine.validate(compiled.policy, request, coarse),
    );
    // The same work, checked 8 times as often (give or take the first and last check).
    assert.ok(Math.abs(fine.checks - coarse.checks * 8) <= 8, `${fine.checks} checks against ${coarse.checks}`);
  });

  test("a context entry read through a port counts CONTEXT_READ_UNITS: a foreach reading one per element is checked that much sooner", () => {
    const engine = createEngine(fakePorts({ configMaps: { "default/cfg": { data: { v: "x" } } } }));
    const rule = (context: boolean): JsonObject =>
      podRule("each", {
        message: "no container may be named x",
        foreach: [
          {
            list: "request.object.spec.containers",
            ...(context ? { context: [{ name: "cfg", configMap: { name: "cfg", namespace: "default" } }] } : {}),
            deny: { conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "x" }] } },
          },
        ],
      });
    const request = { resource: bigPod, operation: "CREATE" as const, namespaceLabels: {} };
    const checksOf = (context: boolean): number => {
      const compiled = engine.compile(clusterPolicy("reads", [rule(context)]));
      assert.ok(compiled.ok);
      const i = countingInterruption(Number.POSITIVE_INFINITY);
      assert.equal(engine.validate(compiled.policy, request, i).rules[0]?.status, "pass");
      return i.checks;
    };
    const plain = checksOf(false);
    const reading = checksOf(true);
    // Each element is 1 unit plus CONTEXT_READ_UNITS for its read (a little more for the deny's work).
    assert.ok(reading >= plain * (1 + CONTEXT_READ_UNITS) * 0.8, `${reading} checks reading against ${plain} plain`);
  });
});

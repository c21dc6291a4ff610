/**
 * Two engines in one process share nothing mutable: each has its own matcher cache, its own ports,
 * and its own interruption count, even when one engine runs inside another's evaluation (a port
 * that evaluates with a second engine). The CEL environments and the JMESPath function table,
 * read-only once built, are shared.
 */
import { kyvernoCompiledRules } from "./policy/compiled-policy.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "./api/json.js";
import { ok } from "./api/result.js";
import { createEngine, type Engine } from "./engine.js";
import { EvaluationInterrupted, isInterruption, TICKS_PER_CHECK } from "./interrupt/index.js";
import type { ContextSources, Interruption } from "./ports.js";
import type { CompiledPolicy } from "./policy/compiled-policy.js";
import { clusterPolicy, pod, podRule } from "../../test/support/builders.js";
import { fakeContext, fakePorts } from "../../test/support/fake-ports.js";

const compile = (engine: Engine, doc: JsonObject): CompiledPolicy => {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.policy;
};
const create = (resource: JsonObject) => ({ resource, operation: "CREATE" as const, namespaceLabels: {} });

/** Counts its checks; trips on the `tripAt`-th. */
function counting(tripAt = Number.POSITIVE_INFINITY): Interruption & { checks: number } {
  const i = {
    ticks: 0,
    checks: 0,
    check() {
      i.checks++;
      if (i.checks >= tripAt) throw new EvaluationInterrupted(`tripped after ${i.checks} checks`);
    },
  };
  return i;
}

const bigPod = pod({
  name: "big",
  containers: Array.from({ length: 20 * TICKS_PER_CHECK }, (_, k) => ({ name: `c${k}`, image: `nginx:${k}` })),
});
const eachContainer = clusterPolicy("each", [
  podRule("each", {
    message: "no container may be named x",
    foreach: [
      {
        list: "request.object.spec.containers",
        deny: { conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "x" }] } },
      },
    ],
  }),
]);

describe("two engines in one process", () => {
  test("each engine has its own matcher cache: rules written alike share a matcher within an engine, never across", () => {
    const a = createEngine(fakePorts());
    const b = createEngine(fakePorts());
    const doc = clusterPolicy("p", [podRule("r", { message: "m", pattern: { metadata: { name: "?*" } } })]);
    const a1 = compile(a, doc);
    const a2 = compile(a, { ...doc, metadata: { name: "q" } });
    const b1 = compile(b, doc);
    assert.equal(kyvernoCompiledRules(a1)[0]?.matcher, kyvernoCompiledRules(a2)[0]?.matcher);
    assert.notEqual(kyvernoCompiledRules(a1)[0]?.matcher, kyvernoCompiledRules(b1)[0]?.matcher);
    // A policy compiled by one engine is evaluated by the other all the same.
    assert.deepEqual(
      b.validate(a1, create(pod({ name: "web" }))).rules,
      a.validate(a1, create(pod({ name: "web" }))).rules,
    );
  });

  test("the JMESPath engine is shared, yet each engine answers with its own ports, interleaved", () => {
    const rule = podRule("clock", {
      message: "m",
      deny: {
        conditions: { any: [{ key: "{{ time_now_utc() }}", operator: "Equals", value: "2026-01-15T12:00:00Z" }] },
      },
    });
    const noon = createEngine(fakePorts({}, Date.UTC(2026, 0, 15, 12, 0, 0)));
    const later = createEngine(fakePorts({}, Date.UTC(2030, 5, 1, 0, 0, 0)));
    const pn = compile(noon, clusterPolicy("clock", [rule]));
    const pl = compile(later, clusterPolicy("clock", [rule]));
    assert.equal(noon.env.jmespath, later.env.jmespath);
    for (let k = 0; k < 3; k++) {
      assert.equal(noon.validate(pn, create(pod({ name: "web" }))).rules[0]?.status, "fail");
      assert.equal(later.validate(pl, create(pod({ name: "web" }))).rules[0]?.status, "pass");
    }
  });

  test("the CEL environments are shared, yet each engine's CEL programs read its own ports, interleaved", () => {
    const vpol = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "clock" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        },
        validations: [{ expression: "time.now() == timestamp('2026-01-15T12:00:00Z')", message: "not noon" }],
      },
    };
    const noon = createEngine(fakePorts({}, Date.UTC(2026, 0, 15, 12, 0, 0)));
    const later = createEngine(fakePorts({}, Date.UTC(2030, 5, 1, 0, 0, 0)));
    const pn = compile(noon, vpol);
    const pl = compile(later, vpol);
    for (let k = 0; k < 3; k++) {
      assert.equal(noon.validate(pn, create(pod({ name: "web" }))).rules[0]?.status, "pass");
      assert.equal(later.validate(pl, create(pod({ name: "web" }))).rules[0]?.status, "fail");
      // A policy compiled by one engine, evaluated by the other: the evaluating engine's clock.
      assert.equal(later.validate(pn, create(pod({ name: "web" }))).rules[0]?.status, "fail");
      assert.equal(noon.validate(pl, create(pod({ name: "web" }))).rules[0]?.status, "pass");
    }
  });

  test("an engine run inside another's evaluation counts on its own interruption; the outer one is not charged", () => {
    const inner = createEngine(fakePorts());
    const heavy = compile(inner, eachContainer);
    const innerInterruption = counting(2);
    let innerStopped: unknown;
    // The outer engine's configMap port evaluates the inner engine's policy under the inner interruption.
    const context: ContextSources = {
      ...fakeContext(),
      canLoad: (kind) => kind === "configMap",
      configMap: () => {
        try {
          inner.validate(heavy, create(bigPod), innerInterruption);
        } catch (e) {
          innerStopped = e;
        }
        return ok({ data: { allowed: "yes" } });
      },
    };
    const outer = createEngine({ ...fakePorts(), context });
    const light = compile(
      outer,
      clusterPolicy("light", [
        podRule(
          "cm",
          {
            message: "m",
            deny: { conditions: { any: [{ key: "{{ cm.data.allowed }}", operator: "Equals", value: "no" }] } },
          },
          { context: [{ name: "cm", configMap: { name: "settings", namespace: "kyverno" } }] },
        ),
      ]),
    );
    const outerInterruption = counting();
    const r = outer.validate(light, create(pod({ name: "web" })), outerInterruption);
    assert.equal(r.rules[0]?.status, "pass", "the outer evaluation finished");
    assert.ok(isInterruption(innerStopped), "the inner evaluation stopped at its own interruption");
    assert.equal(innerInterruption.checks, 2);
    assert.equal(outerInterruption.checks, 0, "the inner engine's work was not counted against the outer interruption");
    assert.ok(outerInterruption.ticks < TICKS_PER_CHECK);
  });

  test("a tripped interruption on one engine leaves the other's evaluations whole", () => {
    const a = createEngine(fakePorts());
    const b = createEngine(fakePorts());
    const pa = compile(a, eachContainer);
    const pb = compile(b, eachContainer);
    assert.throws(() => a.validate(pa, create(bigPod), counting(1)), isInterruption);
    const full = b.validate(pb, create(bigPod));
    assert.equal(full.rules[0]?.status, "pass");
    const bounded = counting();
    assert.deepEqual(b.validate(pb, create(bigPod), bounded), full);
    assert.ok(bounded.checks >= 19, `${bounded.checks} checks`);
    assert.equal(a.validate(pa, create(bigPod)).rules[0]?.status, "pass", "the tripped engine is usable again");
  });
});

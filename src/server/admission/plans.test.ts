/** Plans are worked out once per policy snapshot and follow reloads. */
import { kyvernoCompiledRules } from "../../engine/index.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import type { PolicySnapshot } from "../types.js";
import { AdmissionPlans } from "./plans.js";

const engine = createEngine(fakePorts());
const policy = (name: string, spec: JsonObject = {}): JsonObject =>
  clusterPolicy(
    name,
    [
      {
        name: "r",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { message: "m", pattern: { metadata: { labels: { app: "?*" } } } },
      },
    ],
    spec,
  );
const snapshot = (docs: JsonObject[], generation: number): PolicySnapshot => ({
  policies: docs.map((d) => {
    const r = engine.compile(d);
    if (!r.ok) throw new Error("invalid test policy");
    return r.policy;
  }),
  generation,
  loadedAt: 0,
});
const names = (list: readonly { name: string }[]): string[] => list.map((p) => p.name);

describe("admission plans", () => {
  test("one plan per snapshot and webhook mode, classified by action and emitWarning", () => {
    const plans = new AdmissionPlans();
    const s1 = snapshot(
      [
        policy("enforced", { validationFailureAction: "Enforce" }),
        policy("warned", { emitWarning: true }),
        policy("audited"),
        policy("ignored", { failurePolicy: "Ignore" }),
      ],
      1,
    );
    const plan = plans.validatePlan(s1, "fail");
    assert.equal(plans.validatePlan(s1, "fail"), plan, "the same snapshot gives the same plan");
    assert.deepEqual(names(plan.enforceClass), ["enforced"]);
    assert.deepEqual(names(plan.auditWarn), ["warned"]);
    assert.deepEqual(names(plan.auditOnly), ["audited"]);
    assert.deepEqual(names(plans.validatePlan(s1, "ignore").policies), ["ignored"]);
  });

  test("a reload (a new snapshot) is classified afresh", () => {
    const plans = new AdmissionPlans();
    assert.deepEqual(names(plans.validatePlan(snapshot([policy("p")], 1), "fail").enforceClass), []);
    assert.deepEqual(
      names(
        plans.validatePlan(snapshot([policy("p", { validationFailureAction: "Enforce" })], 2), "fail").enforceClass,
      ),
      ["p"],
    );
  });

  test("mutate plans drop mutate-existing rules and keep the trimmed policy stable", () => {
    const plans = new AdmissionPlans();
    const both = clusterPolicy("m", [
      {
        name: "add",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { a: "b" } } } },
      },
      {
        name: "existing",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: {
          targets: [{ apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "d" }],
          patchStrategicMerge: { data: { x: "y" } },
        },
      },
    ]);
    const s = snapshot([both], 1);
    const plan = plans.mutatePlan(s, undefined);
    const kept = kyvernoCompiledRules(plan.policies[0] ?? assert.fail("no policy")).map((r) => r.name);
    assert.ok(kept.includes("add") && !kept.includes("existing"), kept.join(", "));
    assert.equal(
      plans.mutatePlan(s, undefined).policies[0],
      plan.policies[0],
      "the trimmed policy is the same object on every review",
    );
  });
});

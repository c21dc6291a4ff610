/** The status Bylaw writes on a ClusterPolicy/Policy, built without I/O (policy-status.ts). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject, type JsonValue } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import {
  desiredStatus,
  MAX_CONDITION_MESSAGE,
  notReadyMessage,
  ruleCount,
  statusPatch,
  statusPath,
  type PolicyOutcome,
} from "./policy-status.js";

const engine = createEngine(fakePorts());
const podRule = {
  name: "check-labels",
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
  validate: { message: "label app required", pattern: { metadata: { labels: { app: "?*" } } } },
};
const doc = clusterPolicy("require-labels", [
  podRule,
  {
    name: "add",
    match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
    mutate: { patchStrategicMerge: { metadata: { labels: { x: "y" } } } },
  },
]);

function compiled(d: JsonObject): CompiledPolicy {
  const out = engine.compile(d);
  assert.ok(out.ok);
  return out.policy;
}

function outcome(over: Partial<PolicyOutcome>): PolicyOutcome {
  return {
    kind: "ClusterPolicy",
    namespace: "",
    name: "require-labels",
    uid: "u1",
    resourceVersion: "10",
    generation: 2,
    rules: (doc["spec"] as { rules: JsonValue[] }).rules,
    status: undefined,
    problems: [],
    ...over,
  };
}

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0, 500);
const T1 = T0 + 60_000;

describe("desiredStatus", () => {
  test("a served policy is Ready True, reason Succeeded, with its autogen rules and rule counts", () => {
    const s = desiredStatus(outcome({ compiled: compiled(doc) }), T0);
    assert.deepEqual(s["conditions"], [
      {
        type: "Ready",
        status: "True",
        reason: "Succeeded",
        message: "Ready",
        lastTransitionTime: "2026-11-25T12:00:00Z",
        observedGeneration: 2,
      },
    ]);
    assert.deepEqual(s["rulecount"], { validate: 1, generate: 0, mutate: 1, verifyimages: 0 });
    const rules = (s["autogen"] as { rules: { name: string; match: JsonValue }[] }).rules;
    assert.deepEqual(
      rules.map((r) => r.name),
      ["autogen-check-labels", "autogen-cronjob-check-labels"],
    );
    assert.match(JSON.stringify(rules[0]?.match), /Deployment/);
    assert.deepEqual(s["validatingadmissionpolicy"], { generated: false, message: "" });
  });

  test("a policy that is not served is Ready False, reason Failed, its message naming each problem; no autogen rules", () => {
    const s = desiredStatus(
      outcome({ problems: ["spec.rules[0].validate.pattern: bad", "timeout 7 s has no webhook"] }),
      T0,
    );
    const [c] = s["conditions"] as JsonObject[];
    assert.equal(c?.["status"], "False");
    assert.equal(c?.["reason"], "Failed");
    assert.equal(
      c?.["message"],
      "not served by Bylaw: spec.rules[0].validate.pattern: bad; timeout 7 s has no webhook",
    );
    assert.deepEqual(s["autogen"], {});
    assert.deepEqual(s["rulecount"], { validate: 1, generate: 0, mutate: 1, verifyimages: 0 });
  });

  test("a policy served in part (a generate rule Bylaw does not run) is Ready False with the reason, its autogen rules still listed", () => {
    const reason = "spec.rules[1].generate: rule g: Bylaw does not run generate rules in a cluster yet";
    const s = desiredStatus(outcome({ compiled: compiled(doc), notEvaluated: reason }), T0);
    const [c] = s["conditions"] as JsonObject[];
    assert.equal(c?.["status"], "False");
    assert.equal(c?.["reason"], "Failed");
    assert.equal(c?.["message"], `not served by Bylaw: ${reason}`);
    assert.equal((s["autogen"] as { rules: unknown[] }).rules.length, 2);
  });

  test("lastTransitionTime moves only when the Ready status flips; other conditions are kept", () => {
    const first = desiredStatus(outcome({ compiled: compiled(doc) }), T0);
    const other = {
      type: "Other",
      status: "True",
      reason: "X",
      message: "m",
      lastTransitionTime: "2020-01-01T00:00:00Z",
    };
    const stored = { ...first, conditions: [other, ...(first["conditions"] as JsonValue[])] };
    const again = desiredStatus(outcome({ compiled: compiled(doc), status: stored }), T1);
    assert.deepEqual(again["conditions"], stored.conditions);
    const flipped = desiredStatus(outcome({ problems: ["x: y"], status: stored }), T1);
    const ready = (flipped["conditions"] as JsonObject[]).find((c) => c["type"] === "Ready");
    assert.equal(ready?.["lastTransitionTime"], "2026-11-25T12:01:00Z");
    assert.deepEqual((flipped["conditions"] as JsonObject[])[0], other);
  });

  test("a long message is cut to the CRD's bound", () => {
    const m = notReadyMessage(["x".repeat(MAX_CONDITION_MESSAGE * 2)]);
    assert.equal(m.length, MAX_CONDITION_MESSAGE);
  });
});

describe("ruleCount", () => {
  test("counts the policy's own rules by type, not autogen ones", () => {
    const rules: JsonValue[] = [
      { name: "v", validate: {} },
      { name: "g", generate: {} },
      { name: "i", verifyImages: [{}] },
      { name: "e", verifyImages: [] },
      { name: "autogen-v", validate: {} },
    ];
    assert.deepEqual(ruleCount(rules), { validate: 1, generate: 1, mutate: 0, verifyimages: 1 });
  });
});

describe("statusPatch", () => {
  test("is guarded by uid and resourceVersion, and removes keys the desired status no longer has", () => {
    const stored = {
      ready: true,
      autogen: { rules: [{ name: "autogen-old" }] },
      rulecount: { validate: 1, generate: 0, mutate: 0, verifyimages: 0 },
    };
    const o = outcome({ problems: ["x: y"], status: stored });
    const p = statusPatch(o, desiredStatus(o, T0));
    assert.deepEqual(p["metadata"], { uid: "u1", resourceVersion: "10" });
    const status = p["status"] as JsonObject;
    assert.equal(status["ready"], null);
    assert.deepEqual(status["autogen"], { rules: null });
  });

  test("paths of the status subresource", () => {
    assert.equal(
      statusPath({ kind: "ClusterPolicy", namespace: "", name: "a" }),
      "/apis/kyverno.io/v1/clusterpolicies/a/status",
    );
    assert.equal(
      statusPath({ kind: "Policy", namespace: "team-a", name: "b" }),
      "/apis/kyverno.io/v1/namespaces/team-a/policies/b/status",
    );
  });
});

/** Mutate UpdateRequests as Kyverno writes them, and which rules run when their policy changes (existing-triggers.ts). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { readUpdateRequest, updateRequestObject } from "../generate/update-request.js";
import { mutateOnPolicyUpdateRules } from "./existing-triggers.js";

function compile(spec: JsonObject): CompiledPolicy {
  const r = createEngine(fakePorts()).compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec,
  });
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.policy;
}

const rule = (name: string, mutate: JsonObject): JsonObject => ({
  name,
  match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
  mutate: {
    targets: [{ apiVersion: "v1", kind: "Secret", namespace: "{{ request.object.metadata.namespace }}" }],
    patchStrategicMerge: { metadata: { labels: { foo: "bar" } } },
    ...mutate,
  },
});

describe("mutate UpdateRequests", () => {
  test("requestType mutate, the one rule in spec.rule, Kyverno's mutate labels; read back the same", () => {
    const o = updateRequestObject(
      {
        requestType: "mutate",
        policy: "tenant-a/label",
        rules: [{ rule: "r", synchronize: false, deleteDownstream: false }],
        trigger: { apiVersion: "v1", kind: "ConfigMap", namespace: "tenant-a", name: "c", uid: "u" },
        operation: "CREATE",
        userInfo: { username: "alice" },
        admissionRequest: { uid: "req" },
      },
      "bylaw",
    );
    const spec = o["spec"] as JsonObject;
    assert.equal(spec["requestType"], "mutate");
    assert.equal(spec["rule"], "r");
    const labels = (o["metadata"] as JsonObject)["labels"] as Record<string, string>;
    assert.equal(labels["mutate.updaterequest.kyverno.io/policy-name"], "label");
    assert.equal(labels["mutate.updaterequest.kyverno.io/trigger-kind"], "ConfigMap");
    const back = readUpdateRequest({ ...o, metadata: { name: "ur-1", namespace: "bylaw" } });
    assert.equal(back.requestType, "mutate");
    assert.equal(back.policy, "tenant-a/label");
    assert.deepEqual(
      back.rules.map((r) => r.rule),
      ["r"],
    );
    assert.equal(back.trigger.name, "c");
  });
});

describe("mutateExistingOnPolicyUpdate", () => {
  test("the rule's own field, else the deprecated spec field; either off by default", () => {
    const p = compile({
      mutateExistingOnPolicyUpdate: true,
      rules: [rule("own-false", { mutateExistingOnPolicyUpdate: false }), rule("inherits", {})],
    });
    assert.deepEqual(mutateOnPolicyUpdateRules(p), ["inherits"]);
    assert.deepEqual(
      mutateOnPolicyUpdateRules(compile({ rules: [rule("r", { mutateExistingOnPolicyUpdate: true })] })),
      ["r"],
    );
    assert.deepEqual(mutateOnPolicyUpdateRules(compile({ rules: [rule("r", {})] })), []);
  });
});

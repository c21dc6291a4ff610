/**
 * UpdateRequests as Kyverno writes them (update-request.ts), and which rules a policy's lifecycle
 * touches: generateExisting (existing-triggers.ts) and deletion with the policy (policy-deleted.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type CompiledPolicy, createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { generateExistingRules } from "./existing-triggers.js";
import { mutatingScanWork } from "../mutate-existing/existing-triggers.js";
import { rulesDeletedWithPolicy } from "./policy-deleted.js";
import { readUpdateRequest, updateRequestObject, type GenerateWorkItem } from "./update-request.js";

const work: GenerateWorkItem = {
  policy: "tenant-a/copy",
  rules: [{ rule: "r", synchronize: true, deleteDownstream: false }],
  trigger: { apiVersion: "v1", kind: "ConfigMap", namespace: "tenant-a", name: "x".repeat(70), uid: "u" },
  operation: "CREATE",
  userInfo: { username: "alice", groups: ["dev"] },
  admissionRequest: { uid: "req" },
};

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

const rule = (name: string, generate: JsonObject): JsonObject => ({
  name,
  match: { any: [{ resources: { kinds: ["Namespace"] } }] },
  generate: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "x", data: {}, ...generate },
});

describe("UpdateRequests", () => {
  test("one per policy and trigger, with Kyverno's fields and labels; read back the same", () => {
    const o = updateRequestObject(work, "bylaw");
    assert.equal(o["apiVersion"], "kyverno.io/v2");
    const meta = o["metadata"] as JsonObject;
    assert.equal(meta["generateName"], "ur-");
    assert.equal(meta["namespace"], "bylaw");
    const labels = meta["labels"] as Record<string, string>;
    assert.equal(labels["generate.kyverno.io/policy-name"], "copy");
    assert.equal(labels["generate.kyverno.io/resource-name"], `${"x".repeat(51)}...truncated`);
    assert.equal(labels["generate.kyverno.io/resource-kind"], "ConfigMap");
    const spec = o["spec"] as JsonObject;
    assert.equal(spec["requestType"], "generate");
    assert.equal(spec["policy"], "tenant-a/copy");
    const ur = readUpdateRequest({ ...o, metadata: { ...meta, name: "ur-1" } });
    assert.equal(ur.state, "Pending");
    assert.equal(ur.policy, "tenant-a/copy");
    assert.deepEqual(ur.rules, [{ rule: "r", synchronize: true, deleteDownstream: false, trigger: work.trigger }]);
    assert.deepEqual(ur.userInfo, work.userInfo);
    assert.equal(ur.operation, "CREATE");
  });

  test("a request of Kyverno's older shape (spec.rule, no ruleContext) and its status are read", () => {
    const ur = readUpdateRequest({
      metadata: { name: "ur-2", namespace: "kyverno" },
      spec: { policy: "p", rule: "r", synchronize: true, deleteDownstream: true, resource: { ...work.trigger } },
      status: { state: "Failed", message: "m", retryCount: 2 },
    });
    assert.deepEqual(ur.rules, [{ rule: "r", synchronize: true, deleteDownstream: true, trigger: work.trigger }]);
    assert.equal(ur.state, "Failed");
    assert.equal(ur.retryCount, 2);
  });
});

describe("a mutate-existing MutatingPolicy's scan", () => {
  const engine = createEngine(fakePorts());
  const compiled = (evaluation: JsonObject): CompiledPolicy => {
    const r = engine.compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedMutatingPolicy",
      metadata: { name: "label-all", namespace: "team-a" },
      spec: {
        evaluation,
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["secrets"] }],
        },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
      },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    return r.policy;
  };

  test("one cel-mutate request without a trigger when it appears, as Kyverno's policy controller writes; read back the same", () => {
    const [work, ...more] = mutatingScanWork(compiled({ mutateExisting: { enabled: true } }));
    assert.deepEqual(more, []);
    assert.ok(work !== undefined);
    const object = updateRequestObject(work, "bylaw");
    const spec = object["spec"] as JsonObject;
    assert.equal(spec["requestType"], "cel-mutate");
    assert.equal(spec["policy"], "team-a/label-all");
    const back = readUpdateRequest({ ...object, metadata: { ...(object["metadata"] as JsonObject), name: "ur-1" } });
    assert.equal(back.requestType, "cel-mutate");
    assert.equal(back.policy, "team-a/label-all");
    assert.equal(back.trigger.name, "");
    assert.deepEqual(mutatingScanWork(compiled({})), [], "no mutateExisting: no scan");
  });
});

describe("a policy's lifecycle", () => {
  test("generateExisting per rule, the deprecated spec.generateExisting as the fallback", () => {
    const p = compile({
      generateExisting: true,
      rules: [rule("inherit", {}), rule("off", { generateExisting: false }), rule("on", { generateExisting: true })],
    });
    assert.deepEqual(generateExistingRules(p), ["inherit", "on"]);
  });

  test("deleted with the policy: synchronized rules, unless orphanDownstreamOnPolicyDelete", () => {
    const p = compile({
      rules: [
        rule("sync", { synchronize: true }),
        rule("orphan", { synchronize: true, orphanDownstreamOnPolicyDelete: true }),
        rule("plain", {}),
      ],
    });
    assert.deepEqual(rulesDeletedWithPolicy(p), ["sync"]);
  });
});

/** A served ValidatingPolicy runs in an evaluation worker as on the main thread (its compiled document does not compile again). */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { createEngine, type EngineRequest, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import type { PolicySnapshot } from "../types.js";
import { createWorkerPool } from "./worker-pool.js";

const engine = createEngine(fakePorts());
const namespacedPolicy: JsonObject = {
  apiVersion: "policies.kyverno.io/v1beta1",
  kind: "NamespacedValidatingPolicy",
  metadata: { name: "no-forbidden", namespace: "team" },
  spec: {
    validationActions: ["Deny"],
    matchConstraints: {
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
    },
    validations: [{ expression: "object.metadata.?labels.?x.orValue('') != 'forbidden'", message: "x is forbidden" }],
  },
};

test("a NamespacedValidatingPolicy gives the same results in a worker as on this thread", async () => {
  const compiled = compileCelPolicy(namespacedPolicy, engine);
  assert.ok(compiled.policy !== undefined, JSON.stringify(compiled.problems));
  const snapshot: PolicySnapshot = { policies: [compiled.policy], generation: 1, loadedAt: 0 };
  const pool = createWorkerPool({ size: 1, now: () => performance.now() / 1000 });
  after(() => pool.close());
  for (const x of ["forbidden", "fine"]) {
    const resource: JsonObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "team", labels: { x } },
    };
    const request: EngineRequest = { resource, operation: "CREATE", namespaceLabels: {} };
    const outcome = await pool.run({
      snapshot,
      policies: snapshot.policies,
      request,
      object: resource,
      deadlineAt: performance.now() / 1000 + 10,
    });
    assert.deepEqual(
      outcome.done.map((d) => d.response.rules),
      [engine.validate(compiled.policy, request).rules],
    );
  }
});

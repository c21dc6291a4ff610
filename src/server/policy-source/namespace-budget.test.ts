import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../kube/types.js";
import { type CompiledPolicy, createEngine } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { admissionBudgetProblems, overNamespaceBudget } from "./namespace-budget.js";

const policy = (namespace: string, name: string, created: string, spec: object = { rules: [] }): KubeObject =>
  ({ metadata: { namespace, name, creationTimestamp: created }, spec }) as KubeObject;

test("per namespace, oldest first: past the count or the bytes a policy is over; other namespaces are untouched", () => {
  const a1 = policy("a", "z-first", "2026-01-01T00:00:00Z");
  const a2 = policy("a", "a-second", "2026-01-02T00:00:00Z");
  const a3 = policy("a", "m-third", "2026-01-03T00:00:00Z");
  const b1 = policy("b", "only", "2026-01-09T00:00:00Z");
  const over = overNamespaceBudget(
    [a3, b1, a2, a1].map((obj) => ({ obj, kind: "Policy" })),
    { maxPolicies: 2, maxBytes: 1_000 },
  );
  assert.deepEqual([...over.keys()], [a3]);
  assert.match(over.get(a3) ?? "", /namespace a holds more than 2 policies/);
  const large = policy("a", "large", "2026-01-02T12:00:00Z", { rules: [], pad: "x".repeat(600) });
  const bytes = overNamespaceBudget(
    [a1, large, a2].map((obj) => ({ obj, kind: "Policy" })),
    { maxPolicies: 10, maxBytes: 500 },
  );
  assert.deepEqual([...bytes.keys()], [large], "a2, later but small, still fits");
  assert.match(bytes.get(large) ?? "", /namespace a's policies take more than 500 bytes/);
});

test("the kinds share one budget; equal timestamps are ordered by kind and name", () => {
  const t = "2026-01-01T00:00:00Z";
  const objs = [
    { obj: policy("a", "y", t), kind: "Policy" },
    { obj: policy("a", "x", t), kind: "NamespacedValidatingPolicy" },
    { obj: policy("a", "x", t), kind: "Policy" },
  ];
  const over = overNamespaceBudget(objs, { maxPolicies: 2, maxBytes: 10_000 });
  assert.deepEqual([...over.keys()], [objs[0]?.obj]);
});

test("at the policy webhook: a new policy its namespace has no room for is refused; an update of a served one is not", () => {
  const engine = createEngine(fakePorts());
  const compiled = (namespace: string, name: string, pad = ""): CompiledPolicy => {
    const r = engine.compile({
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      metadata: { name, namespace },
      spec: {
        rules: [
          { name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate: { message: pad, deny: {} } },
        ],
      },
    });
    if (!r.ok) throw new Error("does not compile");
    return r.policy;
  };
  const served = [compiled("a", "one"), compiled("a", "two"), compiled("b", "three")];
  const budget = { maxPolicies: 2, maxBytes: 10_000 };
  const [full] = admissionBudgetProblems(compiled("a", "new"), served, budget);
  assert.match(
    full?.message ?? "",
    /namespace a already holds 2 policies, its budget \(--max-policies-per-namespace 2\)/,
  );
  assert.deepEqual(admissionBudgetProblems(compiled("a", "two"), served, budget), [], "an update of a served policy");
  assert.deepEqual(admissionBudgetProblems(compiled("b", "new"), served, budget), [], "another namespace has room");
  const [bytes] = admissionBudgetProblems(compiled("b", "large", "x".repeat(20_000)), served, budget);
  assert.match(bytes?.message ?? "", /past its budget of 10000 bytes \(--max-policy-bytes-per-namespace\)/);
  assert.deepEqual(admissionBudgetProblems({ ...compiled("a", "c"), namespace: "" }, served, budget), []);
});

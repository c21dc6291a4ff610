import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../kube/types.js";
import { overNamespaceBudget } from "./namespace-budget.js";

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

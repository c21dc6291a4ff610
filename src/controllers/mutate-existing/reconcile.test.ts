/** The mutate-existing decision (reconcile.ts): which targets are written, and the request's state. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Resource, RuleResult } from "../../engine/index.js";
import { type MutateReconcileInput, reconcileMutateExisting } from "./reconcile.js";

const secret = (ns: string, name: string, labels: Record<string, string> = {}): Resource => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace: ns, resourceVersion: "7", labels },
});

const pass = (target: Resource): RuleResult => ({
  rule: "r",
  type: "Mutation",
  status: "pass",
  message: "",
  patchedTarget: target,
});

function input(over: Partial<MutateReconcileInput>): MutateReconcileInput {
  return {
    policy: { namespace: undefined },
    policyKey: "p",
    triggerProblem: undefined,
    results: [],
    current: (t) => secret(String((t["metadata"] as { namespace: string }).namespace), "s"),
    ...over,
  };
}

describe("reconcileMutateExisting", () => {
  test("a patched target is updated with the resourceVersion it was patched from", () => {
    const patched = secret("staging", "s", { foo: "bar" });
    const r = reconcileMutateExisting(input({ results: [pass(patched)] }));
    assert.equal(r.state, "Completed");
    assert.deepEqual(r.actions, [{ type: "update", rule: "r", resource: patched }]);
  });

  test("a target the patch leaves as it is, or one deleted since, is not written", () => {
    const same = reconcileMutateExisting(input({ results: [pass(secret("staging", "s"))] }));
    assert.deepEqual([same.state, same.actions], ["Completed", []]);
    const gone = reconcileMutateExisting(
      input({ results: [pass(secret("a", "s", { x: "y" }))], current: () => undefined }),
    );
    assert.deepEqual([gone.state, gone.actions], ["Completed", []]);
  });

  test("a skip is no failure; an error fails the request with Kyverno's message", () => {
    const r = reconcileMutateExisting(
      input({
        results: [
          { rule: "r", type: "Mutation", status: "skip", message: "preconditions not met" },
          { rule: "r", type: "Mutation", status: "error", message: "failed to substitute variables" },
        ],
      }),
    );
    assert.equal(r.state, "Failed");
    assert.equal(
      r.message,
      "failed to mutate existing resource, rule r, response error: failed to substitute variables",
    );
  });

  test("a namespaced Policy writes no target outside its namespace (checked after substitution)", () => {
    const r = reconcileMutateExisting(
      input({
        policy: { namespace: "tenant-a" },
        results: [pass(secret("tenant-b", "s", { owned: "yes" })), pass(secret("tenant-a", "s", { ok: "1" }))],
      }),
    );
    assert.equal(r.state, "Failed");
    assert.match(
      r.message,
      /namespaced Policy \(namespace tenant-a\) can only mutate targets in its own namespace, not Secret tenant-b\/s/,
    );
    assert.deepEqual(
      r.actions.map((a) => (a.resource["metadata"] as { namespace: string }).namespace),
      ["tenant-a"],
    );
    const clusterScoped: Resource = { apiVersion: "v1", kind: "Namespace", metadata: { name: "kube-system" } };
    const c = reconcileMutateExisting(input({ policy: { namespace: "tenant-a" }, results: [pass(clusterScoped)] }));
    assert.deepEqual([c.state, c.actions], ["Failed", []]);
  });

  test("a missing policy or trigger fails the request, naming it", () => {
    assert.equal(
      reconcileMutateExisting(input({ policy: "missing", policyKey: "ns/p" })).message,
      "policy ns/p not found",
    );
    const t = reconcileMutateExisting(input({ triggerProblem: "the trigger ConfigMap a/b no longer exists" }));
    assert.deepEqual([t.state, t.message], ["Failed", "the trigger ConfigMap a/b no longer exists"]);
  });
});

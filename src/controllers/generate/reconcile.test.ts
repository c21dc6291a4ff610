import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { GeneratedResource, Resource } from "../../engine/index.js";
import { drifted, reconcile, type ReconcileInput, type RuleOutcome } from "./reconcile.js";

const secret = (namespace: string, token: string, labels: Record<string, string> = {}): Resource => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "regcred", namespace, labels },
  data: { token },
});

const LABELS = { "generate.kyverno.io/rule-name": "copy", "generate.kyverno.io/policy-name": "sync" };

const generated = (r: Resource, synchronize = true): GeneratedResource => ({
  resource: r,
  labels: LABELS,
  toApply: r,
  synchronize,
  orphanDownstreamOnPolicyDelete: false,
});

const rule = (over: Partial<RuleOutcome> = {}): RuleOutcome => ({
  rule: "copy",
  downstreamLabel: over.rule ?? "copy",
  synchronize: true,
  deleteDownstream: false,
  status: "pass",
  message: "",
  generated: [],
  ...over,
});

const input = (over: Partial<ReconcileInput> = {}): ReconcileInput => ({
  policy: { key: "sync", namespace: undefined },
  policyKey: "sync",
  triggerGone: false,
  rules: [],
  current: [],
  namespaced: () => true,
  ...over,
});

describe("generate reconcile", () => {
  test("an absent target is created, with the labels the engine put on it", () => {
    const want = secret("team-a", "x", LABELS);
    const out = reconcile(input({ rules: [rule({ generated: [generated(want)] })] }));
    assert.deepEqual(out.actions, [{ type: "create", rule: "copy", resource: want }]);
    assert.equal(out.state, "Completed");
    assert.deepEqual(out.generated, [
      { apiVersion: "v1", kind: "Secret", namespace: "team-a", name: "regcred", uid: "" },
    ]);
  });

  test("a drifted target is updated when the rule synchronizes, keeping the object's resourceVersion", () => {
    const want = secret("team-a", "new", LABELS);
    const present = {
      ...secret("team-a", "old", LABELS),
      metadata: { ...(secret("team-a", "old", LABELS)["metadata"] as object), resourceVersion: "7" },
    };
    const out = reconcile(input({ rules: [rule({ generated: [generated(want)] })], current: [present] }));
    assert.equal(out.actions.length, 1);
    const action = out.actions[0];
    assert.equal(action?.type, "update");
    if (action?.type === "update") {
      assert.deepEqual(action.resource["data"], { token: "new" });
      assert.equal((action.resource["metadata"] as { resourceVersion?: string }).resourceVersion, "7");
    }
  });

  test("a synchronized kyverno.io rule that is skipped loses its downstream; a GeneratingPolicy an exception exempts keeps it", () => {
    const present = secret("team-a", "x", LABELS);
    const skipped = reconcile(input({ rules: [rule({ status: "skip" })], current: [present] }));
    assert.deepEqual(
      skipped.actions.map((a) => a.type),
      ["delete"],
    );
    const excepted = reconcile(input({ rules: [rule({ status: "excepted" })], current: [present] }));
    assert.deepEqual(excepted.actions, []);
    assert.equal(excepted.state, "Completed");
    // A deleted trigger (deleteDownstream) still takes it, exception or not.
    const gone = reconcile(
      input({ rules: [rule({ status: "excepted", deleteDownstream: true })], current: [present] }),
    );
    assert.deepEqual(
      gone.actions.map((a) => a.type),
      ["delete"],
    );
  });

  test("without synchronize an existing target is left as it is", () => {
    const out = reconcile(
      input({
        rules: [rule({ synchronize: false, generated: [generated(secret("team-a", "new", LABELS), false)] })],
        current: [secret("team-a", "edited by hand")],
      }),
    );
    assert.deepEqual(out.actions, []);
    assert.equal(out.state, "Completed");
  });

  test("an unchanged target is not written", () => {
    const want = secret("team-a", "same", LABELS);
    const out = reconcile(input({ rules: [rule({ generated: [generated(want)] })], current: [want] }));
    assert.deepEqual(out.actions, []);
  });

  test("a synchronized rule whose trigger is gone deletes its downstream; another rule's is kept", () => {
    const mine = secret("team-a", "x", LABELS);
    const other = secret("team-b", "x", { ...LABELS, "generate.kyverno.io/rule-name": "other" });
    const out = reconcile(input({ triggerGone: true, rules: [rule()], current: [mine, other] }));
    assert.deepEqual(out.actions, [
      {
        type: "delete",
        rule: "copy",
        target: { apiVersion: "v1", kind: "Secret", namespace: "team-a", name: "regcred", uid: "" },
      },
    ]);
  });

  test("a GeneratingPolicy's outcome (named by the policy) finds its downstream by its body's label and deletes what it no longer generates", () => {
    const gp = { "generate.kyverno.io/rule-name": "" };
    const stale = secret("team-a", "x", { ...LABELS, ...gp });
    const classic = secret("team-b", "x", LABELS);
    const outcome = rule({ rule: "gen-secrets", downstreamLabel: "", status: "pass", generated: [] });
    const out = reconcile(input({ rules: [outcome], current: [stale, classic] }));
    assert.deepEqual(out.actions, [
      {
        type: "delete",
        rule: "gen-secrets",
        target: { apiVersion: "v1", kind: "Secret", namespace: "team-a", name: "regcred", uid: "" },
      },
    ]);
  });

  test("without synchronize a gone trigger leaves the downstream in place", () => {
    const out = reconcile(
      input({ triggerGone: true, rules: [rule({ synchronize: false })], current: [secret("team-a", "x", LABELS)] }),
    );
    assert.deepEqual(out.actions, []);
  });

  test("a rule error fails the request with the rule's message, and writes nothing for it", () => {
    const out = reconcile(
      input({ rules: [rule({ status: "error", message: "failed to get source default/regcred" })] }),
    );
    assert.equal(out.state, "Failed");
    assert.equal(out.message, "rule copy: failed to get source default/regcred");
    assert.deepEqual(out.actions, []);
  });

  test("a rule error whose message names its rule already names it once", () => {
    const out = reconcile(
      input({ rules: [rule({ status: "error", message: "rule copy: cannot read the clone source Secret x/y" })] }),
    );
    assert.equal(out.message, "rule copy: cannot read the clone source Secret x/y");
  });

  test("a missing policy fails the request, naming it", () => {
    const out = reconcile(input({ policy: "missing", policyKey: "team-a/gen" }));
    assert.equal(out.state, "Failed");
    assert.equal(out.message, "policy team-a/gen not found");
  });

  test("a namespaced Policy may not write into another namespace or a cluster-scoped kind (checked after substitution)", () => {
    const policy = { key: "tenant-a/gen", namespace: "tenant-a" };
    const elsewhere = reconcile(
      input({ policy, rules: [rule({ generated: [generated(secret("tenant-b", "x", LABELS))] })] }),
    );
    assert.equal(elsewhere.state, "Failed");
    assert.match(elsewhere.message, /can only generate into its own namespace, not Secret tenant-b\/regcred/);
    assert.deepEqual(elsewhere.actions, []);
    const ns: Resource = { apiVersion: "v1", kind: "Namespace", metadata: { name: "evil" } };
    const cluster = reconcile(
      input({ policy, namespaced: () => false, rules: [rule({ generated: [generated(ns)] })] }),
    );
    assert.equal(cluster.state, "Failed");
    assert.match(cluster.message, /cannot generate the cluster-scoped Namespace evil; use a ClusterPolicy/);
    const own = reconcile(
      input({ policy, rules: [rule({ generated: [generated(secret("tenant-a", "x", LABELS))] })] }),
    );
    assert.equal(own.state, "Completed");
    assert.equal(own.actions.length, 1);
  });

  test("drift ignores fields the API server adds, but not a changed label", () => {
    const want = secret("a", "x", LABELS);
    assert.equal(drifted(want, { ...want, type: "Opaque", status: {} }), false);
    assert.equal(drifted(want, secret("a", "x", { ...LABELS, "generate.kyverno.io/rule-name": "y" })), true);
  });
});

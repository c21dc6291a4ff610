/** The policy status decision: pending until registration knows, nothing when unchanged, else one patch. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonValue } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, podRule } from "../../../test/support/builders.js";
import { desiredStatus, type PolicyOutcome } from "./policy-status.js";
import { reconcileStatus } from "./reconcile-status.js";

const doc = clusterPolicy("p", [podRule("r", { pattern: { metadata: { labels: { app: "?*" } } } })]);
const out = createEngine(fakePorts()).compile(doc);
assert.ok(out.ok);

const outcome = (over: Partial<PolicyOutcome> = {}): PolicyOutcome => ({
  kind: "ClusterPolicy",
  namespace: "",
  name: "p",
  uid: "u1",
  resourceVersion: "1",
  generation: 1,
  rules: (doc["spec"] as { rules: JsonValue[] }).rules,
  status: undefined,
  compiled: out.policy,
  problems: [],
  ...over,
});

test("a served policy whose registration is not known yet is pending; a refused one is written", () => {
  assert.deepEqual(
    reconcileStatus({ outcome: outcome(), registration: { state: undefined }, last: undefined, nowMs: 0 }),
    { kind: "pending" },
  );
  const refused = reconcileStatus({
    outcome: outcome(),
    registration: { state: { registered: false, message: "refused" } },
    last: undefined,
    nowMs: 0,
  });
  assert.equal(refused.kind, "patch");
});

test("a new status is one patch of the status subresource; the stored desired status is left alone", () => {
  const first = reconcileStatus({ outcome: outcome(), last: undefined, nowMs: 1_000 });
  assert.ok(first.kind === "patch");
  assert.equal(first.path, "/apis/kyverno.io/v1/clusterpolicies/p/status");
  assert.deepEqual(first.desired, desiredStatus(outcome(), 1_000));
  const stored = outcome({ status: first.desired, resourceVersion: "2" });
  assert.deepEqual(reconcileStatus({ outcome: stored, last: undefined, nowMs: 2_000 }), { kind: "unchanged" });
});

test("our own last write is not written again while the cache still shows the object before it", () => {
  const desired = desiredStatus(outcome(), 0);
  const last = { before: "1", desired, stored: desired };
  assert.deepEqual(reconcileStatus({ outcome: outcome(), last, nowMs: 0 }), { kind: "unchanged" });
});

test("a Ready policy whose background grant was removed turns not Ready naming it, and Ready again once granted", () => {
  const ready = desiredStatus(outcome(), 0);
  const stored = outcome({ status: ready, resourceVersion: "2" });
  const refusal =
    "spec.rules[0].generate.generateExisting: system:serviceaccount:bylaw:bylaw-background-controller does not have permissions to 'list' resource ConfigMap in every namespace, the existing triggers generateExisting reads. Grant proper permissions to the background controller";
  const action = reconcileStatus({ outcome: stored, last: undefined, nowMs: 5_000, background: [refusal] });
  assert.ok(action.kind === "patch");
  const condition = (
    action.desired["conditions"] as { type: string; status: string; reason: string; message: string }[]
  )[0];
  assert.equal(condition?.status, "False");
  assert.equal(condition?.reason, "Failed");
  assert.ok(condition?.message.includes(refusal), condition?.message);
  const notReady = outcome({ status: action.desired, resourceVersion: "3" });
  assert.deepEqual(reconcileStatus({ outcome: notReady, last: undefined, nowMs: 6_000, background: [refusal] }), {
    kind: "unchanged",
  });
  const again = reconcileStatus({ outcome: notReady, last: undefined, nowMs: 7_000, background: [] });
  assert.ok(again.kind === "patch");
  assert.equal((again.desired["conditions"] as { status: string }[])[0]?.status, "True");
});

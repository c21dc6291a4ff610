import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject, type PolicyResponse } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { backgroundAppliedEvents, policyResultEvents } from "./policy-events.js";
import { eventComponents } from "./components.js";

function compile(doc: JsonObject): CompiledPolicy {
  const r = createEngine(fakePorts()).compile(doc);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.policy;
}

const validatePolicy = compile({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "require-team", uid: "pol-uid" },
  spec: {
    rules: [
      {
        name: "check-team",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { message: "label team is required", pattern: { metadata: { labels: { team: "?*" } } } },
      },
    ],
  },
});
const mutatePolicy = compile({
  apiVersion: "kyverno.io/v1",
  kind: "Policy",
  metadata: { name: "add-owner", namespace: "apps" },
  spec: {
    rules: [
      {
        name: "owner",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { owner: "x" } } } },
      },
    ],
  },
});
const pod: JsonObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "apps", uid: "pod-uid" } };
const origin = { controller: "kyverno-admission", instance: "bylaw-0", now: Date.parse("2026-01-01T00:00:00Z") };

const failed: PolicyResponse = {
  policy: validatePolicy,
  resource: pod,
  rules: [
    { rule: "check-team", type: "Validation", status: "fail", message: "validation error: label team is required" },
  ],
};

test("an Audit failure: PolicyViolation on the policy (related to the Pod) and on the Pod, Kyverno's texts", () => {
  const [onPolicy, onPod, ...rest] = policyResultEvents({ responses: [failed], resource: pod, blocked: false, origin });
  assert.equal(rest.length, 0);
  assert.equal(onPolicy?.["reason"], "PolicyViolation");
  assert.equal(onPolicy?.["type"], "Warning");
  assert.equal(onPolicy?.["action"], "Resource Passed");
  assert.equal(onPolicy?.["note"], "Pod apps/web: [check-team] fail; validation error: label team is required");
  assert.equal(onPolicy?.["reportingController"], "kyverno-admission");
  assert.equal(onPolicy?.metadata["namespace"], "default");
  assert.deepEqual(onPolicy?.["regarding"], {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    name: "require-team",
    uid: "pol-uid",
  });
  assert.deepEqual(onPolicy?.["related"], {
    apiVersion: "v1",
    kind: "Pod",
    name: "web",
    namespace: "apps",
    uid: "pod-uid",
  });
  assert.equal(onPod?.["note"], "policy require-team/check-team fail: validation error: label team is required");
  assert.equal(onPod?.metadata["namespace"], "apps");
  assert.match(onPod?.metadata["name"] as string, /^web\.[0-9a-f]+$/);
});

test("a blocked request: only the policy's Event, marked (blocked); the object does not exist", () => {
  const events = policyResultEvents({ responses: [failed], resource: pod, blocked: true, origin });
  assert.equal(events.length, 1);
  assert.equal(events[0]?.["action"], "Resource Blocked");
  assert.equal(
    events[0]?.["note"],
    "Pod apps/web: [check-team] fail (blocked); validation error: label team is required",
  );
});

test("an object without a name yet (generateName) gets no Event of its own", () => {
  const unnamed = { apiVersion: "v1", kind: "Pod", metadata: { generateName: "web-", namespace: "apps" } };
  const events = policyResultEvents({ responses: [failed], resource: unnamed, blocked: false, origin });
  assert.equal(events.length, 1);
  assert.equal((events[0]?.["regarding"] as JsonObject)["kind"], "ClusterPolicy");
});

test("applied policies: PolicyApplied (Normal) for a pass and a mutation, in the policy's namespace; omitted reasons are not made", () => {
  const passed: PolicyResponse = { ...failed, rules: [{ ...failed.rules[0]!, status: "pass", message: "" }] };
  const mutated: PolicyResponse = {
    policy: mutatePolicy,
    resource: pod,
    rules: [{ rule: "owner", type: "Mutation", status: "pass", message: "mutated" }],
  };
  const events = policyResultEvents({ responses: [passed, mutated], resource: pod, blocked: false, origin });
  assert.deepEqual(
    events.map((e) => [e["reason"], e["type"], e["note"], e.metadata["namespace"]]),
    [
      ["PolicyApplied", "Normal", "Pod apps/web: pass", "default"],
      ["PolicyApplied", "Normal", "Pod apps/web is successfully mutated", "apps"],
    ],
  );
  const omitted = policyResultEvents({
    responses: [passed, mutated, failed],
    resource: pod,
    blocked: false,
    origin: { ...origin, omit: new Set(["PolicyApplied"]) },
  });
  assert.deepEqual(
    omitted.map((e) => e["reason"]),
    ["PolicyViolation", "PolicyViolation"],
  );
});

test("skipped rules only: no Event", () => {
  const skipped: PolicyResponse = { ...failed, rules: [{ ...failed.rules[0]!, status: "skip", message: "" }] };
  assert.deepEqual(policyResultEvents({ responses: [skipped], resource: pod, blocked: false, origin }), []);
});

test("generated targets: PolicyApplied 'resource generated' from the generate component, renamed by the prefix", () => {
  const c = eventComponents("bylaw");
  assert.equal(c.generate, "bylaw-generate");
  assert.equal(eventComponents().admission, "kyverno-admission");
  const [e] = backgroundAppliedEvents({
    policy: validatePolicy,
    targets: [{ apiVersion: "v1", kind: "Secret", name: "s", namespace: "t", uid: "" }],
    mutated: false,
    origin: { ...origin, controller: c.generate },
  });
  assert.equal(e?.["note"], "resource generated");
  assert.equal(e?.["action"], "Resource Generated");
  assert.equal(e?.["reportingController"], "bylaw-generate");
  assert.deepEqual(e?.["related"], { apiVersion: "v1", kind: "Secret", name: "s", namespace: "t" });
});

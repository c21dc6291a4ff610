import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject, type PolicyResponse } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { backgroundAppliedEvents, policyResultEvents, scanResultEvents } from "./policy-events.js";
import { eventComponents } from "./components.js";
import type { KubeEvent } from "./event-object.js";

/** The admission Events, built (policyResultEvents answers drafts, built only when queued). */
const builtEvents = (input: Parameters<typeof policyResultEvents>[0]): KubeEvent[] =>
  policyResultEvents(input).map((draft) => draft());

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
  const [onPolicy, onPod, ...rest] = builtEvents({ responses: [failed], resource: pod, blocked: false, origin });
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
  const events = builtEvents({ responses: [failed], resource: pod, blocked: true, origin });
  assert.equal(events.length, 1);
  assert.equal(events[0]?.["action"], "Resource Blocked");
  assert.equal(
    events[0]?.["note"],
    "Pod apps/web: [check-team] fail (blocked); validation error: label team is required",
  );
});

test("an object without a name yet (generateName) gets no Event of its own", () => {
  const unnamed = { apiVersion: "v1", kind: "Pod", metadata: { generateName: "web-", namespace: "apps" } };
  const events = builtEvents({ responses: [failed], resource: unnamed, blocked: false, origin });
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
  const events = builtEvents({ responses: [passed, mutated], resource: pod, blocked: false, origin });
  assert.deepEqual(
    events.map((e) => [e["reason"], e["type"], e["note"], e.metadata["namespace"]]),
    [
      ["PolicyApplied", "Normal", "Pod apps/web: pass", "default"],
      ["PolicyApplied", "Normal", "Pod apps/web is successfully mutated", "apps"],
    ],
  );
  const omitted = builtEvents({
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
  assert.deepEqual(builtEvents({ responses: [skipped], resource: pod, blocked: false, origin }), []);
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

const excepted: PolicyResponse = {
  ...failed,
  rules: [
    {
      ...failed.rules[0]!,
      status: "skip",
      message: "rule skipped due to policy exception",
      exceptions: ["apps/allow-web"],
    },
  ],
};

test("a rule an exception skipped: PolicySkipped regarding the exception and the policy, Kyverno's texts; none when blocked or omitted", () => {
  const events = builtEvents({ responses: [excepted], resource: pod, blocked: false, origin });
  assert.deepEqual(
    events.map((e) => [e["reason"], e["type"], e["action"], e["note"]]),
    [
      [
        "PolicySkipped",
        "Normal",
        "Resource Passed",
        "resource Pod/apps/web was skipped from policy rule require-team/check-team",
      ],
      [
        "PolicySkipped",
        "Normal",
        "Resource Passed",
        "resource Pod/apps/web was skipped from rule check-team due to policy exceptions apps/allow-web",
      ],
    ],
  );
  assert.deepEqual(events[0]?.["regarding"], {
    apiVersion: "kyverno.io/v2",
    kind: "PolicyException",
    name: "allow-web",
    namespace: "apps",
  });
  assert.equal(events[0]?.metadata["namespace"], "apps");
  assert.equal((events[1]?.["regarding"] as JsonObject)["kind"], "ClusterPolicy");
  assert.equal((events[1]?.["related"] as JsonObject)["name"], "web");
  assert.deepEqual(builtEvents({ responses: [excepted], resource: pod, blocked: true, origin }), []);
  const omitted = { ...origin, omit: new Set(["PolicyApplied", "PolicySkipped"]) };
  assert.deepEqual(builtEvents({ responses: [excepted], resource: pod, blocked: false, origin: omitted }), []);
});

test("a namespaced policy's exception Event names the policy with its namespace; a pass beside a skip makes no PolicyApplied, as Kyverno's", () => {
  const namespaced: PolicyResponse = {
    policy: mutatePolicy,
    resource: pod,
    rules: [
      { rule: "owner", type: "Mutation", status: "pass", message: "mutated" },
      { rule: "other", type: "Mutation", status: "skip", message: "", exceptions: ["apps/x"] },
    ],
  };
  const notes = builtEvents({ responses: [namespaced], resource: pod, blocked: false, origin }).map((e) => e["note"]);
  assert.deepEqual(notes, [
    "resource Pod/apps/web was skipped from policy rule apps/add-owner/other",
    "resource Pod/apps/web was skipped from rule other due to policy exceptions apps/x",
  ]);
});

test("a ValidatingPolicy skipped by a policies.kyverno.io exception: no Event (Kyverno makes them for kyverno.io policies only)", () => {
  const vpol = compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "vp" },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
      },
      validations: [{ expression: "true" }],
    },
  });
  const skipped: PolicyResponse = {
    policy: vpol,
    resource: pod,
    rules: [{ rule: "vp", type: "Validation", status: "skip", message: "", exceptions: ["apps/x"] }],
  };
  assert.deepEqual(builtEvents({ responses: [skipped], resource: pod, blocked: false, origin }), []);
});

test("a background scan: PolicyViolation on the resource and on the policy per failing rule, never blocked; PolicySkipped for exceptions; a pass makes none", () => {
  const scan = { ...origin, controller: "kyverno-scan" };
  const passed: PolicyResponse = { ...failed, rules: [{ ...failed.rules[0]!, status: "pass", message: "" }] };
  const events = scanResultEvents({ responses: [failed, passed, excepted], resource: pod, origin: scan }).map((d) =>
    d(),
  );
  assert.deepEqual(
    events.map((e) => [e["reason"], (e["regarding"] as JsonObject)["kind"], e["note"], e["action"]]),
    [
      [
        "PolicyViolation",
        "Pod",
        "policy require-team/check-team fail: validation error: label team is required",
        "Resource Passed",
      ],
      [
        "PolicyViolation",
        "ClusterPolicy",
        "Pod apps/web: [check-team] fail; validation error: label team is required",
        "Resource Passed",
      ],
      [
        "PolicySkipped",
        "PolicyException",
        "resource Pod/apps/web was skipped from policy rule require-team/check-team",
        "Resource Passed",
      ],
      [
        "PolicySkipped",
        "ClusterPolicy",
        "resource Pod/apps/web was skipped from rule check-team due to policy exceptions apps/allow-web",
        "Resource Passed",
      ],
    ],
  );
  assert.ok(events.every((e) => e["reportingController"] === "kyverno-scan"));
});

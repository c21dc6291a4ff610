/** MutatingPolicy through the mutating webhook: its JSON patch, beside ClusterPolicy mutations; failurePolicy on an error. */
import { Buffer } from "node:buffer";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { applyJsonPatch, type JsonObject, type JsonPatchOp, type JsonValue } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import { handleMutate, handleMutateBounded, type AdmissionResponseJson } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
};
const mpol = (name: string, expression: string, spec: JsonObject = {}): JsonObject => ({
  apiVersion: "policies.kyverno.io/v1",
  kind: "MutatingPolicy",
  metadata: { name },
  spec: {
    matchConstraints: podRules,
    mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
    ...spec,
  },
});
const classic = clusterPolicy("add-tier", [
  {
    name: "tier",
    match: { any: [{ resources: { kinds: ["Pod"] } }] },
    mutate: { patchStrategicMerge: { metadata: { labels: { tier: "web" } } } },
  },
]);

function run(policies: JsonObject[], body: JsonObject, mode?: "fail" | "ignore") {
  const fake = fakeDeps({
    policies,
    compile: (doc, engine) => {
      if (doc["apiVersion"] !== "policies.kyverno.io/v1") {
        const r = engine.compile(doc);
        if (!r.ok) throw new Error(JSON.stringify(r.problems));
        return r.policy;
      }
      const c = compileCelPolicy(doc, engine);
      if (c.policy === undefined) throw new Error(JSON.stringify(c.problems));
      return c.policy;
    },
  });
  const result = handleMutate(body, fake.deps, mode);
  assert.equal(result.status, 200);
  if (result.status !== 200) throw new Error("unreachable");
  return result.body.response;
}

function applied(object: JsonObject, response: AdmissionResponseJson): JsonValue {
  assert.equal(response.patchType, "JSONPatch");
  const ops = JSON.parse(Buffer.from(response.patch ?? "", "base64").toString("utf8")) as JsonPatchOp[];
  const r = applyJsonPatch(object, ops);
  assert.ok(r.ok);
  return r.value;
}

const addFoo = 'Object{metadata: Object.metadata{labels: {"foo": "bar"}}}';

describe("mutating webhook: MutatingPolicy", () => {
  test("its patch adds the label, together with a ClusterPolicy's mutation in the same review", () => {
    const object = pod({ name: "nginx", labels: { app: "web" } });
    const response = run([classic, mpol("add-foo", addFoo)], reviewOf(object));
    assert.equal(response.allowed, true);
    const out = applied(object, response) as JsonObject;
    assert.deepEqual((out["metadata"] as JsonObject)["labels"], { app: "web", tier: "web", foo: "bar" });
  });

  test("an expression that errors: failurePolicy Fail denies naming the policy; Ignore admits without a patch", () => {
    const object = pod({ name: "nginx" });
    const bad = 'Object{metadata: Object.metadata{labels: {"x": object.spec.nothing.deeper}}}';
    const denied = run([mpol("broken", bad, { failurePolicy: "Fail" })], reviewOf(object), "fail");
    assert.equal(denied.allowed, false);
    assert.match(denied.status?.message ?? "", /broken/);
    const ignored = run([mpol("broken", bad, { failurePolicy: "Ignore" })], reviewOf(object), "ignore");
    assert.equal(ignored.allowed, true);
    assert.equal(ignored.patch, undefined);
  });
});

describe("mutating webhook: MutatingPolicy reinvocationPolicy", () => {
  const labelsOf = (object: JsonObject, response: AdmissionResponseJson): JsonValue =>
    ((applied(object, response) as JsonObject)["metadata"] as JsonObject)["labels"] as JsonValue;
  // Copies the `tier` label a later policy (the ClusterPolicy add-tier, or the MutatingPolicy b-tier) sets.
  const copyTier =
    'Object{metadata: Object.metadata{labels: {"copy": "tier" in object.metadata.labels ? object.metadata.labels["tier"] : "none"}}}';
  const addTier = 'Object{metadata: Object.metadata{labels: {"tier": "web"}}}';

  test("IfNeeded: a later policy's change runs the earlier policy again, so it sees the label", () => {
    const object = pod({ name: "nginx", labels: { app: "web" } });
    const response = run(
      [mpol("a-copy", copyTier, { reinvocationPolicy: "IfNeeded" }), mpol("b-tier", addTier)],
      reviewOf(object),
    );
    assert.equal(response.allowed, true);
    assert.deepEqual(labelsOf(object, response), { app: "web", copy: "web", tier: "web" });
  });

  test("IfNeeded also heeds a ClusterPolicy's change after it", () => {
    const object = pod({ name: "nginx", labels: { app: "web" } });
    const response = run([mpol("a-copy", copyTier, { reinvocationPolicy: "IfNeeded" }), classic], reviewOf(object));
    assert.deepEqual(labelsOf(object, response), { app: "web", copy: "web", tier: "web" });
  });

  test("Never (and no field) runs the policy once: it does not see what came after it", () => {
    const object = pod({ name: "nginx", labels: { app: "web" } });
    for (const spec of [{ reinvocationPolicy: "Never" }, {}]) {
      const response = run([mpol("a-copy", copyTier, spec), mpol("b-tier", addTier)], reviewOf(object));
      assert.deepEqual(labelsOf(object, response), { app: "web", copy: "none", tier: "web" });
    }
  });

  test("IfNeeded with nothing changed after it is not run again", () => {
    const object = pod({ name: "nginx", labels: { app: "web" } });
    // Appends to its own label on each run: a second run would show "xx".
    const grow =
      'Object{metadata: Object.metadata{labels: {"n": "n" in object.metadata.labels ? object.metadata.labels["n"] + "x" : "x"}}}';
    const response = run([mpol("a-grow", grow, { reinvocationPolicy: "IfNeeded" })], reviewOf(object));
    assert.deepEqual(labelsOf(object, response), { app: "web", n: "x" });
  });

  test("two IfNeeded policies that keep changing each other's input stop after one reinvocation each", () => {
    const object = pod({ name: "nginx", labels: { app: "web" } });
    const a =
      'Object{metadata: Object.metadata{labels: {"a": ("b" in object.metadata.labels ? object.metadata.labels["b"] : "") + "x"}}}';
    const b =
      'Object{metadata: Object.metadata{labels: {"b": ("a" in object.metadata.labels ? object.metadata.labels["a"] : "") + "y"}}}';
    const response = run(
      [mpol("a", a, { reinvocationPolicy: "IfNeeded" }), mpol("b", b, { reinvocationPolicy: "IfNeeded" })],
      reviewOf(object),
    );
    assert.equal(response.allowed, true);
    // First pass a=x, b=xy; the reinvocation pass a=xyx, then b=xyxy; no third run.
    assert.deepEqual(labelsOf(object, response), { app: "web", a: "xyx", b: "xyxy" });
  });

  test("a review finished off the main thread reinvokes an IfNeeded policy the batch ran too", async () => {
    // A foreach over 3,000 containers runs past a slice of one check: every policy from it on runs off the main thread.
    const heavy = clusterPolicy("a-heavy", [
      {
        name: "pull",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: {
          foreach: [
            {
              list: "request.object.spec.containers",
              preconditions: { all: [{ key: "{{ element.name }}", operator: "Equals", value: "x" }] },
              patchStrategicMerge: {
                spec: { containers: [{ "(name)": "{{ element.name }}", imagePullPolicy: "Always" }] },
              },
            },
          ],
        },
      },
    ]);
    const containers = Array.from({ length: 3_000 }, (_, i) => ({
      name: i === 2_999 ? "x" : `c${i}`,
      image: "nginx:1.27",
    }));
    const object = pod({ name: "big", labels: { app: "web" }, containers });
    const fake = fakeDeps({
      policies: [heavy, mpol("b-copy", copyTier, { reinvocationPolicy: "IfNeeded" }), mpol("c-tier", addTier)],
      compile: (doc, engine) => {
        if (doc["apiVersion"] !== "policies.kyverno.io/v1") {
          const r = engine.compile(doc);
          if (!r.ok) throw new Error(JSON.stringify(r.problems));
          return r.policy;
        }
        const c = compileCelPolicy(doc, engine);
        if (c.policy === undefined) throw new Error(JSON.stringify(c.problems));
        return c.policy;
      },
    });
    const bounded = handleMutateBounded(reviewOf(object), { ...fake.deps, inlineChecks: 1 });
    assert.ok(bounded instanceof Promise, "the heavy review leaves the main thread's turn");
    const answer = await bounded;
    const response = (answer.body as { response: AdmissionResponseJson }).response;
    assert.equal(response.allowed, true);
    assert.deepEqual(labelsOf(object, response), { app: "web", copy: "web", tier: "web" });
  });
});

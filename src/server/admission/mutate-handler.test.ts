/** The mutating webhook: one base64 JSON patch that applies back onto the object, warnings, failurePolicy. */
import { Buffer } from "node:buffer";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { applyJsonPatch, type JsonObject, type JsonPatchOp, type JsonValue } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { handleMutate, handleMutateBounded, type AdmissionResponseJson, type HandlerResult } from "./index.js";
import { fakeDeps, reviewOf, type FakeSetup } from "../../../test/support/fake-admission-deps.js";

const addLabel = (name: string, key: string, value: string, spec: JsonObject = {}): JsonObject =>
  clusterPolicy(
    name,
    [
      {
        name: `add-${key}`,
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { [key]: value } } } },
      },
    ],
    spec,
  );
const copyTeam = clusterPolicy("copy-team", [
  {
    name: "tier-from-team",
    match: { any: [{ resources: { kinds: ["Pod"] } }] },
    mutate: { patchStrategicMerge: { metadata: { labels: { tier: "{{ request.object.metadata.labels.team }}" } } } },
  },
]);
const broken = (spec: JsonObject): JsonObject =>
  clusterPolicy(
    "broken",
    [
      {
        name: "bad-ref",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { x: "{{ request.object.spec.nothere.deeper }}" } } } },
      },
    ],
    spec,
  );

function run(setup: FakeSetup, body: JsonObject, mode?: "fail" | "ignore") {
  const fake = fakeDeps(setup);
  const result = handleMutate(body, fake.deps, mode);
  assert.equal(result.status, 200);
  if (result.status !== 200) throw new Error("unreachable");
  return { ...fake, response: result.body.response };
}

function applied(object: JsonObject, response: AdmissionResponseJson): JsonValue {
  assert.equal(response.patchType, "JSONPatch");
  const ops = JSON.parse(Buffer.from(response.patch ?? "", "base64").toString("utf8")) as JsonPatchOp[];
  const r = applyJsonPatch(object, ops);
  assert.ok(r.ok, "the patch applies to the object as sent");
  return r.value;
}

describe("mutate", () => {
  test("the base64 JSON patch applies back onto the object and gives the mutated object", () => {
    const object = pod({ name: "nginx", labels: { team: "blue" } });
    const { response, admissions } = run({ policies: [addLabel("add-env", "env", "prod")] }, reviewOf(object));
    assert.equal(response.allowed, true);
    assert.deepEqual(applied(object, response), {
      ...object,
      metadata: { name: "nginx", namespace: "default", labels: { team: "blue", env: "prod" } },
    });
    assert.equal(
      admissions[0]?.patchOps,
      (JSON.parse(Buffer.from(response.patch ?? "", "base64").toString()) as unknown[]).length,
    );
  });
  test("policies apply in order, each seeing the earlier patches", () => {
    const object = pod({ name: "nginx" });
    const { response } = run({ policies: [addLabel("set-team", "team", "red"), copyTeam] }, reviewOf(object));
    const labels = ((applied(object, response) as JsonObject)["metadata"] as JsonObject)["labels"];
    assert.deepEqual(labels, { team: "red", tier: "red" });
  });
  test("a policy that patches nothing passes the object on unchanged; the next one matches, reads and patches the latest object", () => {
    const object = pod({ name: "nginx" });
    // Each rule reads what the one before left: a selector, a precondition on request.object, a JMESPath of it.
    const onlyWeb = clusterPolicy("only-web", [
      {
        name: "mark-web",
        match: { any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { tier: "web" } } } }] },
        preconditions: {
          all: [{ key: "{{ request.object.metadata.labels.team || '' }}", operator: "Equals", value: "red" }],
        },
        mutate: {
          patchStrategicMerge: { metadata: { annotations: { web: "{{ request.object.metadata.labels.tier }}" } } },
        },
      },
    ]);
    const { response } = run(
      {
        policies: [
          clusterPolicy("no-op", [
            {
              name: "other-pods",
              match: { any: [{ resources: { kinds: ["Pod"] } }] },
              preconditions: {
                all: [{ key: "{{ request.object.metadata.name }}", operator: "Equals", value: "other" }],
              },
              mutate: { patchStrategicMerge: { metadata: { labels: { x: "1" } } } },
            },
          ]),
          onlyWeb,
          addLabel("set-team", "team", "red"),
          onlyWeb,
          addLabel("set-tier", "tier", "web"),
          addLabel("again-tier", "tier", "web"),
          onlyWeb,
        ].map((p, i) => ({ ...p, metadata: { name: `p${i}` } })),
      },
      reviewOf(object),
    );
    const metadata = (applied(object, response) as JsonObject)["metadata"] as JsonObject;
    assert.deepEqual(metadata["labels"], { team: "red", tier: "web" });
    assert.deepEqual(metadata["annotations"], { web: "web" });
  });
  test("nothing to change: allowed with no patch", () => {
    const object = pod({ name: "nginx", labels: { env: "prod" } });
    const { response } = run({ policies: [addLabel("add-env", "env", "prod")] }, reviewOf(object));
    assert.deepEqual(response, { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true });
  });
  test("DELETE and CONNECT are allowed unchanged", () => {
    for (const extra of [
      { operation: "DELETE", object: null, oldObject: pod({ name: "nginx" }) },
      { operation: "CONNECT", subResource: "exec", object: { kind: "PodExecOptions", apiVersion: "v1" } },
    ]) {
      const { response } = run(
        { policies: [addLabel("add-env", "env", "prod")] },
        reviewOf(pod({ name: "nginx" }), extra),
      );
      assert.deepEqual(response, { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true });
    }
  });
  test("emitWarning turns each applied mutate rule into a warning", () => {
    const { response } = run(
      { policies: [addLabel("add-env", "env", "prod", { emitWarning: true }), addLabel("quiet", "q", "1")] },
      reviewOf(pod({ name: "nginx" })),
    );
    assert.deepEqual(response.warnings, ["policy add-env.add-env: mutated Pod/nginx in namespace default"]);
  });
  test("an error under failurePolicy Fail denies with the failing rules", () => {
    const { response } = run(
      { policies: [addLabel("add-env", "env", "prod"), broken({})] },
      reviewOf(pod({ name: "nginx" })),
    );
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /^mutation policy broken error: failed to apply policy broken rules \[bad-ref: .+\]$/,
    );
    assert.equal(response.patch, undefined);
  });
  test("an error under Ignore drops only that policy's changes", () => {
    const object = pod({ name: "nginx" });
    const { response, results } = run(
      { policies: [broken({ failurePolicy: "Ignore" }), addLabel("add-env", "env", "prod")] },
      reviewOf(object),
    );
    assert.deepEqual(
      results.map((e) => [e.policy.name, e.result, e.ruleType]),
      [
        ["broken", "error", "mutate"],
        ["add-env", "pass", "mutate"],
      ],
    );
    assert.deepEqual(((applied(object, response) as JsonObject)["metadata"] as JsonObject)["labels"], { env: "prod" });
  });
  test("/mutate/ignore serves only Ignore policies", () => {
    const { response } = run(
      { policies: [addLabel("add-env", "env", "prod")] },
      reviewOf(pod({ name: "nginx" })),
      "ignore",
    );
    assert.equal(response.patch, undefined);
  });
  test("UPDATE mutates the new object", () => {
    const object = pod({ name: "nginx", labels: { team: "a" } });
    const { response } = run(
      { policies: [copyTeam] },
      reviewOf(object, { operation: "UPDATE", oldObject: pod({ name: "nginx" }) }),
    );
    assert.equal(
      (((applied(object, response) as JsonObject)["metadata"] as JsonObject)["labels"] as JsonObject)["tier"],
      "a",
    );
  });
  test("past the deadline a Fail policy left out denies; Ignore ones are skipped", () => {
    const fail = run(
      { policies: [addLabel("a", "a", "1"), addLabel("b", "b", "1")], clockStep: 6, deadlineSeconds: 10 },
      reviewOf(pod({ name: "nginx" })),
    );
    assert.equal(
      fail.response.status?.message,
      "bylaw: admission review exceeded its deadline of 10s before evaluating 1 policy with failurePolicy Fail (b); denied",
    );
    const object = pod({ name: "nginx" });
    const ignore = run(
      {
        policies: [
          addLabel("a", "a", "1", { failurePolicy: "Ignore" }),
          addLabel("b", "b", "1", { failurePolicy: "Ignore" }),
        ],
        clockStep: 6,
        deadlineSeconds: 10,
      },
      reviewOf(object),
    );
    assert.deepEqual(((applied(object, ignore.response) as JsonObject)["metadata"] as JsonObject)["labels"], {
      a: "1",
    });
  });
  test("a foreach over 100k containers is stopped inside the policy at the deadline and answered by its failurePolicy", () => {
    // Only a container named x would be patched: every element is entered and skipped.
    const eachContainer = (spec: JsonObject): JsonObject =>
      clusterPolicy(
        "pull-policy",
        [
          {
            name: "always",
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
        ],
        spec,
      );
    const big = pod({
      name: "big",
      containers: Array.from({ length: 100_000 }, (_, i) => ({ name: `c${i}`, image: "nginx:1.27" })),
    });
    // 1 s per clock reading, read every 1,024 foreach elements: the 10 s deadline passes inside the policy.
    const fail = run({ policies: [eachContainer({})], clockStep: 1, deadlineSeconds: 10 }, reviewOf(big));
    assert.equal(
      fail.response.status?.message,
      "bylaw: admission review exceeded its deadline of 10s before evaluating 1 policy with failurePolicy Fail (pull-policy); denied",
    );
    assert.equal(fail.results.length, 0);
    const ignore = run(
      { policies: [eachContainer({ failurePolicy: "Ignore" })], clockStep: 1, deadlineSeconds: 10 },
      reviewOf(big),
    );
    assert.deepEqual([ignore.response.allowed, ignore.response.patch], [true, undefined]);
  });
  test("past its slice a heavy review finishes off the main thread with the patch it gets inline", async () => {
    // Every container but the last is entered and skipped; the last (named x) is patched.
    const policy = (spec: JsonObject): JsonObject =>
      clusterPolicy(
        "pull-policy",
        [
          {
            name: "always",
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
        ],
        spec,
      );
    const containers = Array.from({ length: 3_000 }, (_, i) => ({
      name: i === 2_999 ? "x" : `c${i}`,
      image: "nginx:1.27",
    }));
    const big = pod({ name: "big", containers });
    const policies = [addLabel("first", "first", "1"), policy({}), addLabel("last", "last", "1")];
    const alone = handleMutate(reviewOf(big), fakeDeps({ policies }).deps);
    // A slice of one check (1,024 units): the foreach over 3,000 containers runs past it.
    const f = fakeDeps({ policies });
    const bounded = handleMutateBounded(reviewOf(big), { ...f.deps, inlineChecks: 1 });
    assert.ok(bounded instanceof Promise, "the heavy review leaves the main thread's turn");
    const later = await bounded;
    assert.deepEqual(later, alone);
    const labels = (
      (applied(big, (later.body as { response: AdmissionResponseJson }).response) as JsonObject)[
        "metadata"
      ] as JsonObject
    )["labels"];
    assert.deepEqual(labels, { first: "1", last: "1" });
    assert.deepEqual(
      f.results.map((r) => `${r.policy.name}:${r.result}`),
      ["first:pass", "pull-policy:pass", "last:pass"],
    );
    // Past its deadline off the main thread: the policies it did not finish answer by their failurePolicy.
    // (5 s per clock reading, 20 s deadline: the slice runs out inside pull-policy at 130 s, past the deadline at 120 s.)
    const slow = fakeDeps({ policies, clockStep: 5, deadlineSeconds: 20 });
    const late = (
      await (handleMutateBounded(reviewOf(big), { ...slow.deps, inlineChecks: 1 }) as Promise<HandlerResult>)
    ).body as { response: AdmissionResponseJson };
    assert.equal(
      late.response.status?.message,
      "bylaw: admission review exceeded its deadline of 20s before evaluating 2 policies with failurePolicy Fail (pull-policy, last); denied",
    );
  });
  test("mutate-existing rules do not run at admission", () => {
    const existing = clusterPolicy("touch-secrets", [
      {
        name: "t",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: {
          targets: [{ apiVersion: "v1", kind: "Secret", name: "s", namespace: "default" }],
          patchStrategicMerge: { metadata: { labels: { x: "y" } } },
        },
      },
    ]);
    const { response, results } = run({ policies: [existing] }, reviewOf(pod({ name: "nginx" })));
    assert.deepEqual(response, { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true });
    assert.equal(results.length, 0);
  });
});

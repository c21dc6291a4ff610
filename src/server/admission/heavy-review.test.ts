/**
 * A heavy review (100k containers under a foreach) batched with a compliant one: the heavy one
 * leaves the batch after its slice and finishes off it; the compliant one is answered at once, on
 * its own merits. Past its deadline the heavy one is answered by its failurePolicy.
 * The fake clock moves on every reading; the engine reads it every 128 units of work in a review's
 * inline slice, every 1,024 after it. A review whose units are slow (a live context read per foreach
 * element) holds the batch's thread for about its slice, not for a thousand reads.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { fakeContext, fakePorts } from "../../../test/support/fake-ports.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import type { AdmissionReviewJson, HandlerResult } from "./types.js";
import { handleValidate, handleValidateBatch } from "./validate-handler.js";

const podRule = (name: string, validate: JsonObject): JsonObject => ({
  name,
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
  validate,
});
const policies = (spec: JsonObject): JsonObject[] => [
  clusterPolicy(
    "heavy",
    [
      podRule("no-x", {
        message: "no container may be named x",
        foreach: [
          {
            list: "request.object.spec.containers",
            deny: { conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "x" }] } },
          },
        ],
      }),
    ],
    spec,
  ),
  clusterPolicy(
    "second",
    [podRule("app-label", { message: "label app is required", pattern: { metadata: { labels: { app: "?*" } } } })],
    spec,
  ),
];
const enforce = { validationFailureAction: "Enforce" };

function podOf(name: string, containers: number, lastName = "c"): JsonObject {
  const list = Array.from({ length: containers }, (_, i) => ({
    name: i === containers - 1 ? lastName : `c${i}`,
    image: "nginx:1.27",
  }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", labels: { app: "a" } },
    spec: { containers: list },
  };
}
const uid = (n: number): string => `00000000-0000-0000-0000-${String(n).padStart(12, "0")}`;
const response = (r: HandlerResult): AdmissionReviewJson["response"] => (r.body as AdmissionReviewJson).response;

describe("a heavy review batched with a compliant one", () => {
  test("the compliant review is allowed at once; the heavy one past its deadline is denied under failurePolicy Fail", async () => {
    // 0.2 s per clock reading: the heavy review's slice ends at its second check (10 ms after the
    // first), and finishing its 100k elements would take about 20 s more.
    const f = fakeDeps({ policies: policies(enforce), clockStep: 0.2, deadlineSeconds: 10 });
    const [heavy, light] = handleValidateBatch(
      [reviewOf(podOf("heavy", 100_000), { uid: uid(1) }), reviewOf(podOf("light", 1), { uid: uid(2) })],
      f.deps,
      "fail",
    );
    assert.ok(
      light !== undefined && !(light instanceof Promise),
      "the compliant review must be answered with its batch",
    );
    assert.equal(response(light).allowed, true);
    assert.ok(heavy instanceof Promise, "the heavy review finishes off its batch");
    const late = response(await heavy);
    assert.equal(late.allowed, false);
    assert.equal(
      late.status?.message,
      "bylaw: admission review exceeded its deadline of 10s before evaluating 2 policies with failurePolicy Fail (heavy, second); denied",
    );
    // The compliant review's results were recorded, the heavy one's unfinished policies were not.
    assert.deepEqual(
      f.results.map((r) => `${r.policy.name}:${r.result}`),
      ["heavy:pass", "second:pass"],
    );
    assert.deepEqual(f.admissions.map((a) => `${a.uid === uid(1) ? "heavy" : "light"}:${a.allowed}`).sort(), [
      "heavy:false",
      "light:true",
    ]);
  });

  test("under failurePolicy Ignore the heavy review past its deadline is allowed", async () => {
    const f = fakeDeps({
      policies: policies({ ...enforce, failurePolicy: "Ignore" }),
      clockStep: 0.2,
      deadlineSeconds: 10,
    });
    const [heavy, light] = handleValidateBatch(
      [reviewOf(podOf("heavy", 100_000), { uid: uid(1) }), reviewOf(podOf("light", 1), { uid: uid(2) })],
      f.deps,
      "ignore",
    );
    assert.equal(response(light as HandlerResult).allowed, true);
    assert.equal(response(await (heavy as Promise<HandlerResult>)).allowed, true);
  });

  test("a heavy review that finishes within its deadline gets its own answer, recorded once", async () => {
    // 0.01 s per reading: the whole review takes about 1 s of its 10 s.
    const f = fakeDeps({ policies: policies(enforce), clockStep: 0.01, deadlineSeconds: 10 });
    const answers = handleValidateBatch(
      [reviewOf(podOf("light", 1), { uid: uid(2) }), reviewOf(podOf("heavy", 100_000, "x"), { uid: uid(1) })],
      f.deps,
      "fail",
    );
    assert.ok(answers[1] instanceof Promise);
    const heavy = response(await answers[1]);
    assert.equal(heavy.allowed, false);
    assert.match(heavy.status?.message ?? "", /no container may be named x/);
    assert.equal(response(answers[0] as HandlerResult).allowed, true);
    const heavyResults = f.results
      .filter((r) => r.policy.name === "heavy")
      .map((r) => r.result)
      .sort();
    assert.deepEqual(heavyResults, ["fail", "pass"]);
    assert.equal(f.results.filter((r) => r.policy.name === "second").length, 2);
  });

  test("finished off its batch, a heavy review gets the answer and records the results it gets alone", async () => {
    const heavyBody = reviewOf(podOf("heavy", 50_000, "x"), { uid: uid(1) });
    const alone = fakeDeps({ policies: policies(enforce), clockStep: 0, deadlineSeconds: 10 });
    const expected = handleValidate(heavyBody, alone.deps, "fail");
    const batched = fakeDeps({ policies: policies(enforce), clockStep: 0, deadlineSeconds: 10 });
    const [answer] = handleValidateBatch(
      [heavyBody, reviewOf(podOf("light", 1), { uid: uid(2) })],
      batched.deps,
      "fail",
    );
    assert.ok(answer instanceof Promise);
    assert.deepEqual((await answer).body, expected.body);
    const key = (r: (typeof alone.results)[number]): string =>
      `${r.policy.name}/${r.rule}/${r.result}/${r.resourceNamespace}/${r.operation}`;
    assert.deepEqual(
      batched.results.filter((r) => r.policy.name === "heavy" && r.result === "fail").map(key),
      alone.results.filter((r) => r.policy.name === "heavy").map(key),
    );
    assert.equal(batched.results.length, alone.results.length + 2, "plus the light review's two results");
  });

  test("a review alone is interrupted inside a policy at its deadline and answered under its failurePolicy", () => {
    const fail = fakeDeps({ policies: policies(enforce), clockStep: 0.2, deadlineSeconds: 10 });
    const denied = response(handleValidate(reviewOf(podOf("heavy", 100_000), { uid: uid(1) }), fail.deps, "fail"));
    assert.equal(
      denied.status?.message,
      "bylaw: admission review exceeded its deadline of 10s before evaluating 2 policies with failurePolicy Fail (heavy, second); denied",
    );
    const ignore = fakeDeps({
      policies: policies({ ...enforce, failurePolicy: "Ignore" }),
      clockStep: 0.2,
      deadlineSeconds: 10,
    });
    assert.equal(
      response(handleValidate(reviewOf(podOf("heavy", 100_000), { uid: uid(1) }), ignore.deps, "ignore")).allowed,
      true,
    );
  });

  test("a review reading a live context entry per foreach element leaves the batch after about its 10 ms slice", async () => {
    // Each read takes 0.5 ms of wall time; the clock is the real one. Before a check every 128 units
    // and 16 units per read, this review held the thread for 1,152 reads (over half a second) first.
    const ports = fakePorts();
    const base = fakeContext({ configMaps: { "default/cfg": { data: { v: "x" } } } });
    let reads = 0;
    const context = {
      ...base,
      configMap: (...args: Parameters<typeof base.configMap>) => {
        reads++;
        const until = performance.now() + 0.5;
        while (performance.now() < until);
        return base.configMap(...args);
      },
    };
    const reading = clusterPolicy(
      "reading",
      [
        podRule("each", {
          message: "no container may be named x",
          foreach: [
            {
              list: "request.object.spec.containers",
              context: [{ name: "cfg", configMap: { name: "cfg", namespace: "default" } }],
              deny: { conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "x" }] } },
            },
          ],
        }),
      ],
      enforce,
    );
    const f = fakeDeps({ policies: [reading], ports: { ...ports, context }, realClock: true, deadlineSeconds: 10 });
    const [heavy, light] = handleValidateBatch(
      [reviewOf(podOf("heavy", 2_000), { uid: uid(1) }), reviewOf(podOf("light", 1), { uid: uid(2) })],
      f.deps,
      "fail",
    );
    const inline = reads;
    assert.ok(heavy instanceof Promise, "the reading review finishes off its batch");
    assert.equal(response(light as HandlerResult).allowed, true);
    // About 8 elements before the first check (128 units of 17), then 10 ms of 0.5 ms reads.
    assert.ok(inline < 100, `${inline} context reads on the batch's thread before the review left it`);
    assert.equal(response(await heavy).allowed, true);
    assert.ok(reads >= 2_001, `${reads} reads: off the batch the review reads every element`);
  });

  test("in a batch a review's slice is its own time: the time spent on the other reviews' policies does not move it off", async () => {
    // Eight reviews of the same moderate work (150 containers) under five policies, 0.5 ms per clock
    // reading: each review's own share is about 1.5 ms a policy, the batch's about 12 ms. The policies
    // differ (each bans its own name), so none shares another's result.
    const moderate = Array.from({ length: 5 }, (_, i) =>
      clusterPolicy(
        `moderate-${i}`,
        [
          podRule("no-x", {
            message: `no container may be named x${i}`,
            foreach: [
              {
                list: "request.object.spec.containers",
                deny: { conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: `x${i}` }] } },
              },
            ],
          }),
        ],
        enforce,
      ),
    );
    const batch = (reviews: number, containers: number, step: number) => {
      const f = fakeDeps({ policies: moderate, clockStep: step, deadlineSeconds: 10 });
      return handleValidateBatch(
        Array.from({ length: reviews }, (_, i) => reviewOf(podOf(`p${i}`, containers), { uid: uid(i + 1) })),
        f.deps,
        "fail",
      );
    };
    const answers = batch(8, 150, 0.0005);
    assert.equal(answers.filter((a) => a instanceof Promise).length, 0, "every review answered with its batch");
    assert.ok(answers.every((a) => !(a instanceof Promise) && response(a).allowed));
    // Twice the work at twice the time per reading: each review's own time passes its 10 ms slice.
    const heavier = batch(8, 300, 0.001);
    assert.equal(heavier.filter((a) => a instanceof Promise).length, 8, "every review finishes off its batch");
    assert.ok((await Promise.all(heavier.map(async (a) => a))).every((a) => response(a).allowed));
  });
});

/** Fairness across namespaces: per-namespace queues, fewest-held first, round robin, a cap, and the pool's spare worker. */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { createEngine, type EngineRequest, type JsonObject } from "../../engine/index.js";
import { clusterPolicy, pod, podRule } from "../../../test/support/builders.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import type { PolicySnapshot } from "../types.js";
import { FairQueue } from "./fair-queue.js";
import { createWorkerPool } from "./worker-pool.js";

describe("FairQueue", () => {
  test("the namespace holding the fewest workers goes first; among equals, the one served longest ago", () => {
    const q = new FairQueue<string>();
    for (const j of ["a1", "a2", "a3"]) q.push("a", j);
    q.push("b", "b1");
    q.push("c", "c1");
    const held = new Map<string, number>();
    const order: string[] = [];
    for (;;) {
      const next = q.take((k) => held.get(k) ?? 0, 10);
      if (next === undefined) break;
      order.push(next.job);
    }
    assert.deepEqual(order, ["a1", "b1", "c1", "a2", "a3"]);
    q.push("a", "a4");
    q.push("b", "b2");
    held.set("a", 2);
    assert.equal(q.take((k) => held.get(k) ?? 0, 10)?.job, "b2");
  });

  test("a namespace at the cap gets no further worker; a settled job leaves its queue", () => {
    const q = new FairQueue<string>();
    q.push("a", "a1");
    q.push("a", "a2");
    assert.equal(
      q.take(() => 1, 1),
      undefined,
    );
    assert.equal(q.remove("a", "a1"), true);
    assert.equal(q.remove("a", "a1"), false);
    assert.deepEqual(q.all(), ["a2"]);
    assert.equal(q.take(() => 0, 1)?.job, "a2");
    assert.deepEqual(q.all(), []);
  });
});

const now = (): number => performance.now() / 1000;
const engine = createEngine(fakePorts());
const noX = engine.compile(
  clusterPolicy("no-x", [
    podRule("no-x", {
      message: "no container may be named x",
      foreach: [
        {
          list: "request.object.spec.containers",
          deny: { conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "x" }] } },
        },
      ],
    }),
  ]),
);
if (!noX.ok) throw new Error("did not compile");
const snapshot: PolicySnapshot = { policies: [noX.policy], generation: 1, loadedAt: 0 };
const requestOf = (resource: JsonObject): EngineRequest => ({
  resource,
  operation: "CREATE",
  namespaceLabels: {},
  userInfo: { username: "u", groups: [], roles: [], clusterRoles: [] },
});
const heavyIn = (namespace: string): JsonObject =>
  pod({
    name: "heavy",
    namespace,
    containers: Array.from({ length: 400_000 }, (_, i) => ({ name: `c${i}`, image: "nginx:1.27" })),
  });
const lightIn = (namespace: string): JsonObject => pod({ name: "light", namespace });

describe("worker pool fairness across namespaces", () => {
  const job = (resource: JsonObject, seconds: number) => ({
    snapshot,
    policies: snapshot.policies,
    request: requestOf(resource),
    object: resource,
    deadlineAt: now() + seconds,
  });

  for (const size of [1, 2]) {
    test(`with ${size} worker(s) busy with one namespace's heavy reviews, another namespace's review is answered at once`, async () => {
      const pool = createWorkerPool({ size, now });
      after(() => pool.close());
      const heavy = heavyIn("tenant-a");
      let firstHogSettledAt = Infinity;
      const hogs = [1, 2, 3, 4].map(() =>
        pool.run(job(heavy, 3)).finally(() => (firstHogSettledAt = Math.min(firstHogSettledAt, now()))),
      );
      await new Promise((r) => setTimeout(r, 100));
      const t0 = now();
      const other = await pool.run(job(lightIn("tenant-b"), 3));
      const answeredAt = now();
      // Not a timing bound (the machine may be loaded): the order. Queued behind tenant-a, the light
      // review would wait for at least one heavy review to settle; answered at once, it comes first.
      assert.ok(
        answeredAt < firstHogSettledAt,
        `answered ${(answeredAt - t0).toFixed(3)} s after asking, after a heavy review settled`,
      );
      assert.equal(other.done[0]?.response.rules[0]?.status, "pass");
      // So is a heavy one of a third namespace, within its own deadline.
      const third = await pool.run(job(heavyIn("tenant-c"), 3));
      assert.equal(third.done.length + third.left.length, 1);
      await Promise.all(hogs);
    });
  }

  test("without the spare, one worker held by one namespace keeps another's review waiting (what the spare is for)", async () => {
    const pool = createWorkerPool({ size: 1, now, spare: false });
    after(() => pool.close());
    let hogSettledAt = Infinity;
    const hog = pool.run(job(heavyIn("tenant-a"), 2)).finally(() => (hogSettledAt = now()));
    await new Promise((r) => setTimeout(r, 100));
    const otherJob = job(lightIn("tenant-b"), 0.3);
    const other = await pool.run(otherJob);
    // The premise: the heavy review still held the only worker when the light one's deadline came
    // (on a fast machine it may have finished sooner; then the light one simply ran).
    if (hogSettledAt > otherJob.deadlineAt) assert.deepEqual([other.done.length, other.left.length], [0, 1]);
    else assert.equal(other.done.length, 1);
    await hog;
  });
});

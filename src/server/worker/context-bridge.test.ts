/**
 * Live context in evaluation workers: a worker's engine reads the main thread's ContextSources
 * through the bridge, each call answered within the review's own async context, never past the
 * review's deadline, and never with an answer over the bound.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";
import {
  type ContextSources,
  createEngine,
  type EngineRequest,
  err,
  type JsonObject,
  type JsonValue,
  ok,
} from "../../engine/index.js";
import { clusterPolicy, pod, podRule } from "../../../test/support/builders.js";
import { fakeContext, fakePorts } from "../../../test/support/fake-ports.js";
import type { PolicySnapshot } from "../types.js";
import { createWorkerPool } from "./worker-pool.js";
import { MAX_ANSWER_BYTES } from "./bridge-host.js";

const now = (): number => performance.now() / 1000;
const requestOf = (resource: JsonObject): EngineRequest => ({
  resource,
  operation: "CREATE",
  namespaceLabels: {},
  userInfo: { username: "u", groups: [], roles: [], clusterRoles: [] },
});

/** Denies with the configMap's `data.x` in its message, one context entry per container. */
const perContainer = clusterPolicy(
  "per-container",
  [
    podRule("per-container", {
      foreach: [
        {
          list: "request.object.spec.containers",
          context: [{ name: "cfg", configMap: { name: "{{ element.name }}", namespace: "team" } }],
          deny: { conditions: { any: [{ key: "{{ cfg.data.x }}", operator: "NotEquals", value: "ok" }] } },
        },
      ],
      message: "x is {{ cfg.data.x }}",
    }),
  ],
  { validationFailureAction: "Enforce" },
);

function snapshotOf(docs: JsonObject[], context: ContextSources): PolicySnapshot {
  const engine = createEngine({ ...fakePorts(), context });
  return {
    policies: docs.map((d) => {
      const r = engine.compile(d);
      if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
      return r.policy;
    }),
    generation: 1,
    loadedAt: 0,
  };
}

const withContainers = (...names: string[]): JsonObject =>
  pod({ name: "p", namespace: "team", containers: names.map((name) => ({ name, image: "nginx:1.27" })) });

describe("live context through the evaluation worker bridge", () => {
  const configMaps: Record<string, JsonValue> = {
    "team/a": { data: { x: "ok" } },
    "team/b": { data: { x: "ok" } },
    "team/bad": { data: { x: "bad" } },
  };
  const context = fakeContext({ configMaps });
  const snapshot = snapshotOf([perContainer], context);
  const pool = createWorkerPool({ size: 1, now, context });
  after(() => pool.close());

  test("a worker's rule results are those of this thread's engine over the same live context", async () => {
    const engine = createEngine({ ...fakePorts(), context });
    for (const resource of [withContainers("a", "b"), withContainers("a", "bad"), withContainers("ghost")]) {
      const request = requestOf(resource);
      const outcome = await pool.run({
        snapshot,
        policies: snapshot.policies,
        request,
        object: resource,
        deadlineAt: now() + 10,
      });
      assert.deepEqual(
        outcome.done.map((d) => d.response.rules),
        snapshot.policies.map((p) => engine.validate(p, request).rules),
      );
    }
  });

  test("each forwarded call is answered within the async context of the review it belongs to", async () => {
    const review = new AsyncLocalStorage<string>();
    const tagged: ContextSources = {
      ...context,
      configMap: () => ok({ data: { x: review.getStore() ?? "no review" } }),
    };
    const own = createWorkerPool({ size: 1, now, context: tagged });
    try {
      const resource = withContainers("a");
      const run = (): Promise<string | undefined> =>
        own
          .run({
            snapshot,
            policies: snapshot.policies,
            request: requestOf(resource),
            object: resource,
            deadlineAt: now() + 10,
          })
          .then((o) => o.done[0]?.response.rules[0]?.message);
      const [one, two] = await Promise.all([review.run("review-1", run), review.run("review-2", run)]);
      assert.match(one ?? "", /x is review-1/);
      assert.match(two ?? "", /x is review-2/);
    } finally {
      await own.close();
    }
  });

  test("while this thread is busy, answerWaiting answers a worker's calls and takes a job's end, so the next job starts", async () => {
    const asked: string[] = [];
    const counted: ContextSources = {
      ...context,
      configMap: (namespace, name, caller) => {
        asked.push(name);
        return context.configMap(namespace, name, caller);
      },
    };
    const own = createWorkerPool({ size: 1, now, context: counted });
    try {
      assert.equal(own.answerWaiting(), false, "nothing is waiting before a job");
      const job = (resource: JsonObject) =>
        own.run({
          snapshot,
          policies: snapshot.policies,
          request: requestOf(resource),
          object: resource,
          deadlineAt: now() + 20,
        });
      // One worker: the second job waits for the first to end, which the worker reports on its channel.
      const first = job(withContainers("a", "bad"));
      const second = job(withContainers("b"));
      // This thread stays busy (as in a batch) until all three calls are answered, or 10 s.
      const busyUntil = now() + 10;
      while (asked.length < 3 && now() < busyUntil) own.answerWaiting();
      assert.deepEqual(asked, ["a", "bad", "b"], "every call of both jobs was answered while this thread was busy");
      const messages = async (outcome: ReturnType<typeof job>) =>
        (await outcome).done.flatMap((d) => d.response.rules.map((r) => `${r.status}: ${r.message}`));
      assert.deepEqual(await messages(first), ["fail: validation failure: x is bad"]);
      assert.deepEqual(await messages(second), ["pass: rule passed"]);
    } finally {
      await own.close();
    }
  });

  test("a call the main thread answers after the review's deadline is a rule error or left by the deadline, never a pass", async () => {
    const slow: ContextSources = {
      ...context,
      configMap: () => {
        const until = now() + 0.6;
        while (now() < until) {
          // this thread is busy past the job's deadline
        }
        return ok({ data: { x: "ok" } });
      },
    };
    const own = createWorkerPool({ size: 1, now, context: slow });
    try {
      const resource = withContainers("a");
      const t0 = now();
      const outcome = await own.run({
        snapshot,
        policies: snapshot.policies,
        request: requestOf(resource),
        object: resource,
        deadlineAt: now() + 0.3,
      });
      assert.ok(now() - t0 < 2, "answered soon after the deadline");
      const statuses = outcome.done.flatMap((d) => d.response.rules.map((r) => r.status));
      assert.ok(!statuses.includes("pass"), `no pass: ${statuses.join(",")}`);
      assert.equal(outcome.done.length + outcome.left.length, 1);
    } finally {
      await own.close();
    }
  });

  test("an answer over the bridge's bound, or one the port fails to give, is a rule error naming the call", async () => {
    const big = "x".repeat(1024 * 1024);
    const huge: ContextSources = {
      ...context,
      configMap: (_ns, name) => {
        if (name === "a")
          return ok({ data: { x: Array.from({ length: MAX_ANSWER_BYTES / big.length + 1 }, () => big) } });
        if (name === "b") throw new Error("cache exploded");
        return err("context", "not found");
      },
    };
    const own = createWorkerPool({ size: 1, now, context: huge });
    try {
      for (const [name, expected] of [
        ["a", /configMap answer is over 16 MiB/],
        ["b", /failed to answer a configMap call: cache exploded/],
      ] as const) {
        const resource = withContainers(name);
        const outcome = await own.run({
          snapshot,
          policies: snapshot.policies,
          request: requestOf(resource),
          object: resource,
          deadlineAt: now() + 10,
        });
        const rule = outcome.done[0]?.response.rules[0];
        assert.equal(rule?.status, "error", JSON.stringify(rule));
        assert.match(rule?.message ?? "", expected);
      }
    } finally {
      await own.close();
    }
  });
});

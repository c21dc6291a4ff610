/** The evaluation worker pool: the same results as this thread, deadlines kept, saturation bounded. */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { createEngine, type CompiledPolicy, type EngineRequest, type JsonObject } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import type { PolicySnapshot } from "../types.js";
import { createWorkerPool } from "./worker-pool.js";

const engine = createEngine(fakePorts());
const podRule = (name: string, validate: JsonObject): JsonObject => ({
  name,
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
  validate,
});
const docs = [
  clusterPolicy(
    "team-label",
    [podRule("team", { message: "label team is required", pattern: { metadata: { labels: { team: "?*" } } } })],
    { validationFailureAction: "Enforce" },
  ),
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
  clusterPolicy("restricted", [podRule("restricted", { podSecurity: { level: "restricted", version: "latest" } })]),
];
const snapshot: PolicySnapshot = {
  policies: docs.map((d) => {
    const r = engine.compile(d);
    if (!r.ok) throw new Error("did not compile");
    return r.policy;
  }),
  generation: 1,
  loadedAt: 0,
};
const now = (): number => performance.now() / 1000;
const requestOf = (resource: JsonObject): EngineRequest => ({
  resource,
  operation: "CREATE",
  namespaceLabels: {},
  userInfo: { username: "u", groups: [], roles: [], clusterRoles: [] },
});
const heavy = pod({
  name: "heavy",
  containers: Array.from({ length: 200_000 }, (_, i) => ({ name: `c${i}`, image: "nginx:1.27" })),
});

describe("worker pool", () => {
  const pool = createWorkerPool({ size: 1, now });
  after(() => pool.close());

  test("a job gives the rule results the engine gives on this thread, joined to this thread's policies", async () => {
    const resource = pod({ name: "p", labels: { app: "a" }, containers: [{ name: "x", image: "nginx" }] });
    const outcome = await sameAsThisThread(pool, snapshot, resource);
    assert.ok(outcome.done.every((d) => d.seconds >= 0));
    assert.deepEqual(
      outcome.done.map((d) => d.response.rules[0]?.status),
      ["fail", "fail", "fail"],
    );
  });

  test("past its deadline a job stops, its unfinished policies are left, and the pool goes on", async () => {
    const noX = snapshot.policies.slice(1, 2);
    const outcome = await pool.run({
      snapshot,
      policies: [...noX, ...snapshot.policies],
      request: requestOf(heavy),
      object: heavy,
      deadlineAt: now() + 0.05,
    });
    assert.ok(outcome.left.length >= 3, `left ${outcome.left.length}`);
    assert.deepEqual(outcome.left.slice(-3), snapshot.policies);
    const light = pod({ name: "p", labels: { team: "t" } });
    const next = await pool.run({
      snapshot,
      policies: snapshot.policies.slice(0, 1),
      request: requestOf(light),
      object: light,
      deadlineAt: now() + 10,
    });
    assert.deepEqual(
      next.done.map((d) => d.response.rules[0]?.status),
      ["pass"],
    );
  });

  test("a job waiting for a busy worker waits no longer than its deadline", async () => {
    const noX = snapshot.policies.slice(1, 2);
    const first = pool.run({
      snapshot,
      policies: noX,
      request: requestOf(heavy),
      object: heavy,
      deadlineAt: now() + 0.5,
    });
    const light = pod({ name: "p", labels: { team: "t" } });
    const t0 = now();
    const queued = await pool.run({
      snapshot,
      policies: snapshot.policies.slice(0, 1),
      request: requestOf(light),
      object: light,
      deadlineAt: now() + 0.05,
    });
    assert.ok(now() - t0 < 0.45, "the queued job was settled at its own deadline");
    assert.deepEqual([queued.done.length, queued.left.length], [0, 1]);
    await first;
  });

  test("in a namespace the cluster facts do not know, a rule selecting by its labels is an error there too", async () => {
    const bySelector = engine.compile(
      clusterPolicy("team-ns", [
        {
          name: "labelled-ns",
          match: { any: [{ resources: { kinds: ["Pod"], namespaceSelector: { matchLabels: { env: "prod" } } } }] },
          validate: { message: "m", pattern: { metadata: { labels: { team: "?*" } } } },
        },
      ]),
    );
    assert.ok(bySelector.ok);
    const own: PolicySnapshot = { policies: [bySelector.policy], generation: 2, loadedAt: 0 };
    const light = pod({ name: "p", labels: { team: "t" } });
    const outcome = await pool.run({
      snapshot: own,
      policies: own.policies,
      request: requestOf(light),
      object: light,
      deadlineAt: now() + 10,
      unknownNamespace: "ghost",
    });
    assert.equal(outcome.done[0]?.response.rules[0]?.status, "error");
    assert.match(outcome.done[0]?.response.rules[0]?.message ?? "", /namespace "ghost" is not in the cluster facts/);
  });

  test("a worker stuck past a job's deadline is terminated and replaced; the job's policies are left", async () => {
    const events: string[] = [];
    const stuck = createWorkerPool({
      size: 1,
      now,
      workerUrl: new URL("./stuck-worker.test.helper.js", import.meta.url),
      onEvent: (e) => events.push(e),
    });
    try {
      const light = pod({ name: "p", labels: { team: "t" } });
      const t0 = now();
      const outcome = await stuck.run({
        snapshot,
        policies: snapshot.policies,
        request: requestOf(light),
        object: light,
        deadlineAt: now() + 0.1,
      });
      assert.ok(now() - t0 < 2, "answered soon after the deadline");
      assert.deepEqual([outcome.done.length, outcome.left.length], [0, 3]);
      assert.deepEqual(events, ["worker replaced"]);
      // The replacement takes the next job (and, being stuck too, is replaced again).
      const next = await stuck.run({
        snapshot,
        policies: snapshot.policies.slice(0, 1),
        request: requestOf(light),
        object: light,
        deadlineAt: now() + 0.1,
      });
      assert.deepEqual(next.left.length, 1);
      assert.deepEqual(events, ["worker replaced", "worker replaced"]);
    } finally {
      await stuck.close();
    }
  });

  test("with heapMiB, a review that outgrows the worker's heap ends that worker, not the process: its policies become errors and a fresh worker takes the next job", async () => {
    const events: { event: string; error: unknown }[] = [];
    const hungry = createWorkerPool({
      size: 1,
      now,
      heapMiB: 16,
      workerUrl: new URL("./hungry-worker.test.helper.js", import.meta.url),
      onEvent: (event, detail) => events.push({ event, error: detail["error"] }),
    });
    try {
      const light = pod({ name: "p", labels: { team: "t" } });
      const job = () =>
        hungry.run({
          snapshot,
          policies: snapshot.policies,
          request: requestOf(light),
          object: light,
          deadlineAt: now() + 30,
        });
      const first = await job();
      assert.equal(first.done.length, 3);
      for (const d of first.done) {
        assert.equal(d.response.rules[0]?.status, "error");
        assert.match(d.response.rules[0]?.message ?? "", /the evaluation worker failed: .*out of memory/i);
      }
      assert.equal(events[0]?.event, "worker failed");
      assert.match(String(events[0]?.error), /out of memory/i);
      const second = await job();
      assert.equal(second.done.length, 3, "the replacement worker took the next job");
    } finally {
      await hungry.close();
    }
  });

  test("with heapMiB, the evaluation worker answers as without it", async () => {
    const bounded = createWorkerPool({ size: 1, now, heapMiB: 64 });
    try {
      const light = pod({ name: "p", labels: { team: "t" } });
      const outcome = await bounded.run({
        snapshot,
        policies: snapshot.policies,
        request: requestOf(light),
        object: light,
        deadlineAt: now() + 10,
      });
      assert.deepEqual(
        outcome.done.map((d) => d.response.rules.map((r) => r.status)),
        (
          await pool.run({
            snapshot,
            policies: snapshot.policies,
            request: requestOf(light),
            object: light,
            deadlineAt: now() + 10,
          })
        ).done.map((d) => d.response.rules.map((r) => r.status)),
      );
      assert.ok(outcome.done.length > 0);
    } finally {
      await bounded.close();
    }
  });

  test("a mutate job chains the policies' patches and gives the patched resource, as on this thread", async () => {
    const addLabel = (name: string, key: string): JsonObject =>
      clusterPolicy(name, [
        {
          name: `add-${key}`,
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { [key]: "{{ request.object.metadata.name }}" } } } },
        },
      ]);
    const existing = clusterPolicy("also-existing", [
      {
        name: "add-z",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { z: "1" } } } },
      },
      {
        name: "touch-secret",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: {
          targets: [{ apiVersion: "v1", kind: "Secret", name: "s", namespace: "default" }],
          patchStrategicMerge: { metadata: { labels: { x: "y" } } },
        },
      },
    ]);
    const compiled = [addLabel("a", "a"), addLabel("b", "b"), existing].map((d) => {
      const r = engine.compile(d);
      assert.ok(r.ok);
      return r.policy;
    });
    const own: PolicySnapshot = { policies: compiled, generation: 3, loadedAt: 0 };
    // As the webhook's plan does: the mutate-existing rule is left out of the copy the job names.
    const plan = [compiled[0], compiled[1], narrowTo(compiled[2], "add-z")] as typeof compiled;
    const resource = pod({ name: "web", labels: { app: "a" } });
    const outcome = await pool.run({
      kind: "mutate",
      snapshot: own,
      policies: plan,
      request: requestOf(resource),
      object: resource,
      deadlineAt: now() + 10,
    });
    assert.deepEqual(outcome.left, []);
    assert.deepEqual(((outcome.resource as JsonObject)["metadata"] as JsonObject)["labels"], {
      app: "a",
      a: "web",
      b: "web",
      z: "1",
    });
    assert.deepEqual(
      outcome.done.map((d) => [d.response.policy.name, d.response.rules.map((r) => `${r.rule}:${r.status}`)]),
      [
        ["a", ["add-a:pass"]],
        ["b", ["add-b:pass"]],
        ["also-existing", ["add-z:pass"]],
      ],
    );
  });

  test("a policy outside the job's snapshot is an evaluation error, never a pass", async () => {
    const other = engine.compile(structuredClone(docs[0] as JsonObject));
    assert.ok(other.ok);
    const light = pod({ name: "p", labels: { team: "t" } });
    const outcome = await pool.run({
      snapshot,
      policies: [other.policy],
      request: requestOf(light),
      object: light,
      deadlineAt: now() + 10,
    });
    assert.equal(outcome.done[0]?.response.rules[0]?.status, "error");
    assert.match(outcome.done[0]?.response.rules[0]?.message ?? "", /not in its policy snapshot/);
  });

  test("snapshots warmed as they load, one policy changed in each, give each snapshot's own results; an evicted one is sent again", async () => {
    const compile = (doc: JsonObject): CompiledPolicy => {
      const r = engine.compile(doc);
      if (!r.ok) throw new Error("did not compile");
      return r.policy;
    };
    // Snapshot 2 keeps the first two policies as compiled and changes the team label the first requires to "owner".
    const owner = compile(
      clusterPolicy(
        "team-label",
        [podRule("team", { message: "label owner is required", pattern: { metadata: { labels: { owner: "?*" } } } })],
        { validationFailureAction: "Enforce" },
      ),
    );
    const [first, second, third] = snapshot.policies as [CompiledPolicy, CompiledPolicy, CompiledPolicy];
    const two: PolicySnapshot = { policies: [owner, second, third], generation: 2, loadedAt: 0 };
    const three: PolicySnapshot = { policies: [first, second], generation: 3, loadedAt: 0 };
    const four: PolicySnapshot = { policies: [owner], generation: 4, loadedAt: 0 };
    for (const s of [two, three, four]) pool.warm(s);
    const resource = pod({ name: "p", labels: { team: "t" }, containers: [{ name: "x", image: "nginx" }] });
    const request = requestOf(resource);
    // The worker keeps the last two (three and four); one and two are sent again with their jobs.
    for (const s of [four, three, two, snapshot]) await sameAsThisThread(pool, s, resource);
    assert.equal(engine.validate(owner, request).rules[0]?.status, "fail");
    assert.equal(engine.validate(first, request).rules[0]?.status, "pass");
  });
});

/** Runs every policy of the snapshot in the pool: each finishes, with the rule results the engine gives on this thread. */
async function sameAsThisThread(
  pool: ReturnType<typeof createWorkerPool>,
  s: PolicySnapshot,
  resource: JsonObject,
): Promise<Awaited<ReturnType<ReturnType<typeof createWorkerPool>["run"]>>> {
  const request = requestOf(resource);
  const outcome = await pool.run({
    snapshot: s,
    policies: s.policies,
    request,
    object: resource,
    deadlineAt: now() + 10,
  });
  assert.deepEqual(outcome.left, [], `snapshot ${s.generation}`);
  assert.deepEqual(
    outcome.done.map((d) => [d.response.policy, d.response.rules]),
    s.policies.map((p) => [p, engine.validate(p, request).rules]),
    `snapshot ${s.generation}`,
  );
  return outcome;
}

/** A kyverno.io policy with only the named rule, as the webhook's mutating plan narrows one. */
function narrowTo(policy: CompiledPolicy | undefined, rule: string): CompiledPolicy {
  if (policy?.language !== "kyverno") return assert.fail("a kyverno.io policy");
  return { ...policy, rules: policy.rules.filter((r) => r.name === rule) };
}

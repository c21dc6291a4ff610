import { test } from "node:test";
import assert from "node:assert/strict";
import { eventObject, type KubeEvent } from "./event-object.js";
import { EventSeries, SERIES_FINISH_MS, SERIES_REFRESH_MS } from "./event-series.js";

const pod = { apiVersion: "v1", kind: "Pod", name: "web", namespace: "team-a", uid: "u1" };
const policy = { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-team", namespace: "" };

function violation(o: { note: string; now: number; regarding?: typeof pod; related?: typeof pod }): KubeEvent {
  return eventObject({
    regarding: o.regarding ?? pod,
    ...(o.related !== undefined ? { related: o.related } : {}),
    type: "Warning",
    reason: "PolicyViolation",
    action: "Resource Passed",
    note: o.note,
    now: o.now,
    controller: "kyverno-admission",
    instance: "bylaw-0",
  });
}

const noteOf = (e: KubeEvent): string => (typeof e["note"] === "string" ? e["note"] : "");

function recorder(o: { gone?: boolean; max?: number } = {}) {
  let now = 1_000_000;
  const writes: string[] = [];
  const series = new EventSeries({
    sink: {
      create: async (e) => {
        const s = e["series"] as { count: number } | undefined;
        writes.push(`create ${noteOf(e)}${s !== undefined ? ` count ${s.count}` : ""}`);
      },
      patchSeries: async (e, s) => {
        if (o.gone === true) throw Object.assign(new Error("events not found"), { status: 404 });
        writes.push(`patch ${noteOf(e)} count ${s.count} at ${s.lastObservedTime}`);
      },
    },
    now: () => now,
    ...(o.max !== undefined ? { maxRemembered: o.max } : {}),
  });
  return {
    series,
    writes,
    advance: (ms: number) => (now += ms),
    at: () => now,
  };
}

test("the second Event of a kind makes the first a series of 2; later ones only count, written when the series ends", async () => {
  const r = recorder();
  await r.series.record(violation({ note: "policy a/r1 fail", now: r.at() }));
  r.advance(1000);
  await r.series.record(violation({ note: "policy b/r2 fail", now: r.at() }));
  const second = new Date(r.at()).toISOString().replace(/Z$/, "000Z");
  r.advance(1000);
  for (let i = 0; i < 3; i++) await r.series.record(violation({ note: `policy c/r${i} fail`, now: r.at() }));
  // The note is the first Event's: the key is action, reason, controller, regarding and related.
  assert.deepEqual(r.writes, ["create policy a/r1 fail", `patch policy a/r1 fail count 2 at ${second}`]);
  // Nothing new for 6 minutes: the series ends with its last count.
  r.advance(SERIES_FINISH_MS);
  await r.series.sweep();
  assert.equal(r.writes.length, 3);
  assert.match(r.writes[2] ?? "", /^patch policy a\/r1 fail count 5 at /);
  assert.equal(r.series.remembered, 0);
  // The next one starts afresh.
  await r.series.record(violation({ note: "policy d/r fail", now: r.at() }));
  assert.equal(r.writes[3], "create policy d/r fail");
});

test("Events about other objects, or related to other objects, are not one series", async () => {
  const r = recorder();
  const other = { ...pod, name: "db", uid: "u2" };
  await r.series.record(violation({ note: "on web", now: r.at() }));
  await r.series.record(violation({ note: "on db", now: r.at(), regarding: other }));
  await r.series.record(
    violation({ note: "policy, web", now: r.at(), regarding: { ...policy, uid: "p" }, related: pod }),
  );
  await r.series.record(
    violation({ note: "policy, db", now: r.at(), regarding: { ...policy, uid: "p" }, related: other }),
  );
  assert.deepEqual(r.writes, ["create on web", "create on db", "create policy, web", "create policy, db"]);
});

test("a series that goes on is written every 30 minutes; singletons are forgotten after 6", async () => {
  const r = recorder();
  await r.series.record(violation({ note: "once", now: r.at(), regarding: { ...pod, name: "once" } }));
  await r.series.record(violation({ note: "often", now: r.at() }));
  await r.series.record(violation({ note: "often", now: r.at() }));
  for (let minute = 1; minute <= 31; minute++) {
    r.advance(60_000);
    await r.series.record(violation({ note: "often", now: r.at() }));
    await r.series.sweep();
  }
  assert.equal(r.series.remembered, 1, "the singleton is forgotten, the series kept");
  const patches = r.writes.filter((w) => w.startsWith("patch often"));
  assert.equal(patches.length, 2, r.writes.join("\n"));
  assert.match(patches[1] ?? "", /count 3[0-9] at/);
  assert.ok(SERIES_REFRESH_MS <= 31 * 60_000);
});

test("a series whose Event is gone is created again with its count; what is remembered is bounded", async () => {
  const gone = recorder({ gone: true });
  await gone.series.record(violation({ note: "n", now: gone.at() }));
  await gone.series.record(violation({ note: "n", now: gone.at() }));
  assert.deepEqual(gone.writes, ["create n", "create n count 2"]);

  const bounded = recorder({ max: 2 });
  for (const name of ["a", "b", "c", "c"])
    await bounded.series.record(violation({ note: name, now: bounded.at(), regarding: { ...pod, name } }));
  // "c" came past the bound: created each time, never a series.
  assert.deepEqual(bounded.writes, ["create a", "create b", "create c", "create c"]);
  assert.equal(bounded.series.remembered, 2);
});

test("the series write waits for the create still in flight (two workers post at once)", async () => {
  const order: string[] = [];
  let finishCreate: () => void = () => undefined;
  const series = new EventSeries({
    sink: {
      create: (e) =>
        new Promise<void>((resolve) => {
          order.push(`create ${noteOf(e)} sent`);
          finishCreate = () => {
            order.push("create answered");
            resolve();
          };
        }),
      patchSeries: async (_e, s) => void order.push(`patch count ${s.count}`),
    },
    now: () => 0,
  });
  const first = series.record(violation({ note: "n", now: 0 }));
  const second = series.record(violation({ note: "n", now: 0 }));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, ["create n sent"]);
  finishCreate();
  await Promise.all([first, second]);
  assert.deepEqual(order, ["create n sent", "create answered", "patch count 2"]);
});

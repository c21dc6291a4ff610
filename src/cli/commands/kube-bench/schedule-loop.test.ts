import { test } from "node:test";
import assert from "node:assert/strict";
import { runOnSchedule } from "./schedule-loop.js";

/** A clock that moves only when the loop sleeps or a run takes time. */
function fakeTime(startMs: number) {
  let now = startMs;
  return {
    now: () => now,
    advance: (ms: number) => (now += ms),
    sleep: (ms: number) => {
      now += ms;
      return Promise.resolve();
    },
  };
}

test("runs at start, then at each tick of the schedule, until stopped", async () => {
  const time = fakeTime(Date.UTC(2026, 0, 1, 10, 7, 0));
  const stop = new AbortController();
  const runs: string[] = [];
  const planned: string[] = [];
  const ran = await runOnSchedule({
    schedule: "0 * * * *",
    signal: stop.signal,
    now: time.now,
    sleep: time.sleep,
    onPlanned: (at) => planned.push(new Date(at).toISOString()),
    tick: () => {
      runs.push(new Date(time.now()).toISOString());
      if (runs.length === 3) stop.abort();
      return Promise.resolve();
    },
  });
  assert.deepEqual(ran, { ok: true });
  assert.deepEqual(runs, ["2026-01-01T10:07:00.000Z", "2026-01-01T11:00:00.000Z", "2026-01-01T12:00:00.000Z"]);
  assert.deepEqual(planned, ["2026-01-01T11:00:00.000Z", "2026-01-01T12:00:00.000Z"]);
});

test("a run that outlasts the next tick lets that tick pass: at most one run per tick, never two at once", async () => {
  const time = fakeTime(Date.UTC(2026, 0, 1, 10, 0, 0));
  const stop = new AbortController();
  const runs: string[] = [];
  let running = 0;
  await runOnSchedule({
    schedule: "*/10 * * * *",
    signal: stop.signal,
    now: time.now,
    sleep: time.sleep,
    tick: () => {
      running++;
      assert.equal(running, 1);
      runs.push(new Date(time.now()).toISOString().slice(11, 16));
      time.advance(25 * 60_000); // each run takes 25 minutes
      running--;
      if (runs.length === 3) stop.abort();
      return Promise.resolve();
    },
  });
  assert.deepEqual(runs, ["10:00", "10:30", "11:00"]);
});

test("a schedule that cannot be read is an error before any run", async () => {
  let runs = 0;
  const ran = await runOnSchedule({
    schedule: "every tuesday",
    signal: new AbortController().signal,
    tick: () => {
      runs++;
      return Promise.resolve();
    },
  });
  assert.equal(ran.ok, false);
  assert.equal(runs, 0);
});

test("stopping while it waits ends the wait at once", async () => {
  const stop = new AbortController();
  let runs = 0;
  const started = Date.now();
  const ran = runOnSchedule({
    schedule: "@every 1h",
    signal: stop.signal,
    tick: () => {
      runs++;
      return Promise.resolve();
    },
  });
  setTimeout(() => stop.abort(), 50);
  assert.deepEqual(await ran, { ok: true });
  assert.equal(runs, 1);
  assert.ok(Date.now() - started < 10_000, "the hour-long wait was cut short");
});

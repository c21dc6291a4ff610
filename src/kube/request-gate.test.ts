import { test } from "node:test";
import assert from "node:assert/strict";
import { RequestGate, type GateClock } from "./request-gate.js";

function fakeClock(): GateClock & { slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
  };
}

test("identical requests in flight share one send and one answer", async () => {
  const gate = new RequestGate({ qps: 10, burst: 10, clock: fakeClock() });
  let sends = 0;
  let release: (v: string) => void = () => {};
  const send = (): Promise<string> => {
    sends++;
    return new Promise((r) => (release = r));
  };
  const a = gate.run("GET /api/v1/pods", send);
  const b = gate.run("GET /api/v1/pods", send);
  await new Promise((r) => setImmediate(r));
  release("list");
  assert.deepEqual(await Promise.all([a, b]), ["list", "list"]);
  assert.equal(sends, 1);
  assert.deepEqual(gate.stats(), { started: 1, coalesced: 1 });
  // Once answered, the next request is sent again (no stale answer is kept).
  const c = gate.run("GET /api/v1/pods", async () => "fresh");
  assert.equal(await c, "fresh");
});

test("past the burst, requests wait for the token bucket (qps)", async () => {
  const clock = fakeClock();
  const gate = new RequestGate({ qps: 2, burst: 2, clock });
  const answers = await Promise.all([1, 2, 3, 4].map((i) => gate.run(`GET /x/${i}`, async () => i)));
  assert.deepEqual(answers, [1, 2, 3, 4]);
  assert.deepEqual(clock.slept, [500, 500]);
});

test("a failed send fails every waiter and is not remembered", async () => {
  const gate = new RequestGate({ qps: 100, burst: 100, clock: fakeClock() });
  const boom = (): Promise<never> => Promise.reject(new Error("connection refused"));
  const [a, b] = await Promise.allSettled([gate.run("k", boom), gate.run("k", boom)]);
  assert.equal(a?.status, "rejected");
  assert.equal(b?.status, "rejected");
  assert.equal(await gate.run("k", async () => "ok"), "ok");
});

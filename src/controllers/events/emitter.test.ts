import { test } from "node:test";
import assert from "node:assert/strict";
import { EventsEmitter } from "./emitter.js";
import type { KubeEvent } from "./event-object.js";

const ev = (n: number): KubeEvent => ({ metadata: { name: `e${n}` } });
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test("emit only queues: nothing is posted before a later turn of the event loop", async () => {
  const posted: string[] = [];
  const e = new EventsEmitter({ post: async (x) => void posted.push(x.metadata["name"] as string), maxQueued: 10 });
  assert.equal(e.emit(ev(1)), true);
  assert.deepEqual(posted, []);
  await tick();
  await tick();
  assert.deepEqual(posted, ["e1"]);
  assert.equal(e.queued, 0);
});

test("a flood past the cap is dropped and counted; memory holds at most the cap; posts stay bounded", async () => {
  let inFlight = 0;
  let most = 0;
  const release: (() => void)[] = [];
  const posted: string[] = [];
  let drops = 0;
  const e = new EventsEmitter({
    post: (x) => {
      inFlight++;
      most = Math.max(most, inFlight);
      return new Promise<void>((r) =>
        release.push(() => {
          inFlight--;
          posted.push(x.metadata["name"] as string);
          r();
        }),
      );
    },
    maxQueued: 100,
    workers: 2,
    onDrop: () => drops++,
  });
  let accepted = 0;
  for (let i = 0; i < 10_000; i++) if (e.emit(ev(i))) accepted++;
  assert.equal(accepted, 100);
  assert.equal(e.dropped, 9_900);
  assert.equal(drops, 9_900);
  assert.ok(e.queued <= 100);
  // Drain: at most two posts at a time.
  while (posted.length < 100) {
    await tick();
    for (const r of release.splice(0)) r();
    await tick();
  }
  assert.equal(most, 2);
  assert.deepEqual(posted.slice(0, 3), ["e0", "e1", "e2"]);
  // Room again once drained.
  assert.equal(e.emit(ev(1)), true);
});

test("a refused Event is reported and the next one is still posted; a closed emitter drops", async () => {
  const errors: string[] = [];
  const posted: string[] = [];
  const e = new EventsEmitter({
    post: async (x) => {
      if (x.metadata["name"] === "e1") throw new Error("forbidden");
      posted.push(x.metadata["name"] as string);
    },
    maxQueued: 10,
    onError: (err) => errors.push(String(err)),
  });
  e.emit(ev(1));
  e.emit(ev(2));
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(errors, ["Error: forbidden"]);
  assert.deepEqual(posted, ["e2"]);
  e.close();
  assert.equal(e.emit(ev(3)), false);
  assert.equal(e.dropped, 1);
});

test("max 0: no Event is ever queued", () => {
  const e = new EventsEmitter({ post: async () => undefined, maxQueued: 0 });
  assert.equal(e.emit(ev(1)), false);
  assert.equal(e.queued, 0);
});

test("a draft is built only when it is queued: one the full queue drops is counted and never built", () => {
  const e = new EventsEmitter({ post: () => new Promise<void>(() => undefined), maxQueued: 2, later: () => undefined });
  let built = 0;
  const draft = (n: number) => () => (built++, ev(n));
  assert.equal(e.emit(draft(1)), true);
  assert.equal(e.emit(draft(2)), true);
  for (let i = 3; i < 100; i++) assert.equal(e.emit(draft(i)), false);
  assert.equal(built, 2);
  assert.equal(e.dropped, 97);
  assert.equal(e.queued, 2);
});

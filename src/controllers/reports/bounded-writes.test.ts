import assert from "node:assert/strict";
import { test } from "node:test";
import { BoundedWrites } from "./bounded-writes.js";

/** A task that ends when the test says so. */
function gate(): { promise: Promise<void>; open: () => void; fail: (e: Error) => void } {
  let open = (): void => undefined;
  let fail = (_: Error): void => undefined;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

test("at most `limit` tasks run at once; the next starts when one ends", async () => {
  const writes = new BoundedWrites(2);
  const gates = [gate(), gate(), gate()];
  const started: number[] = [];
  await writes.start(() => (started.push(0), gates[0]!.promise));
  await writes.start(() => (started.push(1), gates[1]!.promise));
  let third = false;
  const waiting = writes.start(() => (started.push(2), gates[2]!.promise)).then(() => (third = true));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1]);
  assert.equal(third, false);
  gates[1]!.open();
  await waiting;
  assert.deepEqual(started, [0, 1, 2]);
  gates[0]!.open();
  gates[2]!.open();
  await writes.drain();
});

test("a failure does not stop the other tasks; drain throws it after all have ended", async () => {
  const writes = new BoundedWrites(4);
  const [a, b] = [gate(), gate()];
  let bEnded = false;
  await writes.start(() => a.promise);
  await writes.start(() => b.promise.then(() => void (bEnded = true)));
  a.fail(new Error("HTTP 500"));
  const drained = writes.drain().then(
    () => "drained",
    (e: unknown) => (e as Error).message,
  );
  await new Promise((r) => setImmediate(r));
  assert.equal(bEnded, false);
  b.open();
  assert.equal(await drained, "HTTP 500");
  assert.equal(bEnded, true);
  // The failure is reported once.
  await writes.drain();
});

test("settle waits for every task and never throws", async () => {
  const writes = new BoundedWrites(1);
  const a = gate();
  await writes.start(() => a.promise);
  const settled = writes.settle();
  a.fail(new Error("refused"));
  await settled;
  await assert.rejects(writes.drain(), /refused/);
});

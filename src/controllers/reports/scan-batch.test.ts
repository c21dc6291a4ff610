import assert from "node:assert/strict";
import { test } from "node:test";
import { BoundedWrites } from "./bounded-writes.js";
import { ScanBatch } from "./scan-batch.js";

/** A batch over numbers whose visits and writes are logged in order; item 3 has nothing to write. */
function logged(size: number, inFlight = 8): { batch: ScanBatch<number>; log: string[]; writes: BoundedWrites } {
  const log: string[] = [];
  const writes = new BoundedWrites(inFlight);
  const batch = new ScanBatch<number>({
    size,
    writes,
    visit: (n) => {
      log.push(`visit ${n}`);
      return Promise.resolve(
        n === 3
          ? undefined
          : async () => {
              log.push(`write ${n}`);
              await new Promise((r) => setImmediate(r));
            },
      );
    },
  });
  return { batch, log, writes };
}

test("a batch's items are all visited before the first of their writes starts", async () => {
  const { batch, log, writes } = logged(3);
  for (const n of [0, 1, 2, 3, 4]) await batch.add(n);
  await batch.flush();
  await writes.drain();
  assert.deepEqual(log, [
    "visit 0",
    "visit 1",
    "visit 2",
    "write 0",
    "write 1",
    "write 2",
    "visit 3",
    "visit 4",
    "write 4",
  ]);
});

test("nothing is visited until the batch is full or flushed", async () => {
  const { batch, log } = logged(4);
  await batch.add(0);
  await batch.add(1);
  assert.equal(log.length, 0);
  await batch.flush();
  assert.deepEqual(log.slice(0, 2), ["visit 0", "visit 1"]);
  await batch.flush();
  assert.equal(log.filter((l) => l.startsWith("visit")).length, 2, "a flushed item is not visited again");
});

test("the writes stay bounded by the pass's writes in flight", async () => {
  let running = 0;
  let most = 0;
  const writes = new BoundedWrites(2);
  const batch = new ScanBatch<number>({
    size: 5,
    writes,
    visit: () =>
      Promise.resolve(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setImmediate(r));
        running--;
      }),
  });
  for (let n = 0; n < 12; n++) await batch.add(n);
  await batch.flush();
  await writes.drain();
  assert.equal(most, 2);
});

test("an item whose visit throws does not stop the others; the pass's drain reports it", async () => {
  const written: number[] = [];
  const writes = new BoundedWrites(2);
  const batch = new ScanBatch<number>({
    size: 3,
    writes,
    visit: (n) => {
      if (n === 1) return Promise.reject(new Error("poisoned item 1"));
      return Promise.resolve(() => (written.push(n), Promise.resolve()));
    },
  });
  for (const n of [0, 1, 2, 3]) await batch.add(n);
  await batch.flush();
  await assert.rejects(writes.drain(), /poisoned item 1/);
  assert.deepEqual(written, [0, 2, 3]);
});

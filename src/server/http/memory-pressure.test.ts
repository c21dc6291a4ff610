import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { heapBudgetBytes, watchMemoryPressure } from "./memory-pressure.js";

const MIB = 1024 * 1024;

describe("watchMemoryPressure", () => {
  test("sheds while the heap, after a full collection, is above 85% of its budget; stops when it falls", () => {
    let used = 100 * MIB;
    let collections = 0;
    let clock = 0;
    const changes: (string | undefined)[] = [];
    const p = watchMemoryPressure({
      readHeap: () => ({ used, limit: 128 * MIB }),
      readRss: () => 0,
      collect: () => collections++,
      now: () => clock,
      intervalMs: 60_000,
      onChange: (r) => changes.push(r),
    });
    try {
      p.check();
      assert.equal(p.reason(), undefined);
      used = 120 * MIB;
      p.check();
      assert.equal(p.reason(), "heap 120 MiB of 128 MiB");
      assert.equal(collections, 1, "a collection ran before deciding");
      p.check();
      assert.equal(collections, 1, "at most one collection a second");
      clock = 1000;
      used = 50 * MIB;
      p.check();
      assert.equal(p.reason(), undefined);
      assert.deepEqual(
        changes,
        ["heap 120 MiB of 128 MiB", undefined],
        "the start and the end of shedding are reported once each",
      );
    } finally {
      p.stop();
    }
  });

  test("garbage that a collection frees does not shed", () => {
    let used = 120 * MIB;
    const p = watchMemoryPressure({
      readHeap: () => ({ used, limit: 128 * MIB }),
      collect: () => (used = 40 * MIB),
      intervalMs: 60_000,
    });
    try {
      p.check();
      assert.equal(p.reason(), undefined);
    } finally {
      p.stop();
    }
  });

  test("with a container limit, resident memory above 85% of it sheds while over half of it is held, and the heap budget is at most 60% of it", () => {
    let external = 130 * MIB;
    const p = watchMemoryPressure({
      limitBytes: 256 * MIB,
      readHeap: () => ({ used: 10 * MIB, limit: 4096 * MIB }),
      readExternal: () => external,
      readRss: () => 230 * MIB,
      collect: () => undefined,
      intervalMs: 60_000,
    });
    try {
      p.check();
      assert.equal(p.reason(), "resident memory 230 MiB of the 256 MiB limit");
      // The buffers freed, the allocator keeps the pages (resident memory stays): reviews are served.
      external = 20 * MIB;
      p.check();
      assert.equal(p.reason(), undefined);
    } finally {
      p.stop();
    }
    assert.equal(heapBudgetBytes(4096 * MIB, 256 * MIB), Math.floor(256 * MIB * 0.6));
    assert.equal(heapBudgetBytes(130 * MIB, 256 * MIB), 130 * MIB);
    assert.equal(heapBudgetBytes(130 * MIB, undefined), 130 * MIB);
  });
});

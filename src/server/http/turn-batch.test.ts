import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createTurnBatch, type TurnBatch } from "./turn-batch.js";

/** A batch whose scheduled runs wait in a list until the test runs them. */
function manual(maxPerChunk?: number): { batch: TurnBatch; runs: (() => void)[]; errors: unknown[] } {
  const runs: (() => void)[] = [];
  const errors: unknown[] = [];
  const batch = createTurnBatch({
    ...(maxPerChunk !== undefined ? { maxPerChunk } : {}),
    schedule: (run) => runs.push(run),
    onError: (e) => errors.push(e),
  });
  return { batch, runs, errors };
}

/** Work that logs its evaluation and sends an answer that logs its write. */
function review(batch: TurnBatch, log: string[], name: string): () => void {
  return () => {
    log.push(`eval ${name}`);
    batch.send(() => log.push(`write ${name}`));
  };
}

describe("createTurnBatch", () => {
  test("work added in one turn runs in one scheduled batch: every evaluation, then every write, in order", () => {
    const { batch, runs } = manual();
    const log: string[] = [];
    for (const name of ["a", "b", "c"]) batch.add(review(batch, log, name));
    assert.equal(runs.length, 1, "one run is scheduled for the whole turn");
    assert.deepEqual(log, [], "nothing runs before the scheduled batch");
    runs[0]?.();
    assert.deepEqual(log, ["eval a", "eval b", "eval c", "write a", "write b", "write c"]);
  });

  test("an answer sent outside a batch is written at once", () => {
    const { batch, runs } = manual();
    const log: string[] = [];
    batch.send(() => log.push("write now"));
    assert.deepEqual(log, ["write now"]);
    assert.equal(runs.length, 0);
  });

  test("a burst larger than a chunk is written chunk by chunk, so early reviews do not wait for late ones", () => {
    const { batch, runs } = manual(2);
    const log: string[] = [];
    for (const name of ["a", "b", "c", "d", "e"]) batch.add(review(batch, log, name));
    runs[0]?.();
    assert.deepEqual(log, [
      "eval a",
      "eval b",
      "write a",
      "write b",
      "eval c",
      "eval d",
      "write c",
      "write d",
      "eval e",
      "write e",
    ]);
  });

  test("work that throws is reported and the rest of the batch, and its writes, still run", () => {
    const { batch, runs, errors } = manual();
    const log: string[] = [];
    batch.add(review(batch, log, "a"));
    batch.add(() => {
      throw new Error("handler blew up");
    });
    batch.add(() =>
      batch.send(() => {
        throw new Error("write blew up");
      }),
    );
    batch.add(review(batch, log, "d"));
    runs[0]?.();
    assert.deepEqual(log, ["eval a", "eval d", "write a", "write d"]);
    assert.deepEqual(
      errors.map((e) => (e as Error).message),
      ["handler blew up", "write blew up"],
    );
  });

  test("work added while a batch runs goes to a new batch; answers sent from a write are written at once", () => {
    const { batch, runs } = manual();
    const log: string[] = [];
    batch.add(() => {
      log.push("eval a");
      batch.add(review(batch, log, "late"));
      batch.send(() => {
        log.push("write a");
        batch.send(() => log.push("write from a write"));
      });
    });
    runs[0]?.();
    assert.deepEqual(log, ["eval a", "write a", "write from a write"]);
    assert.equal(runs.length, 2, "the late work scheduled a second batch");
    runs[1]?.();
    assert.deepEqual(log.slice(3), ["eval late", "write late"]);
  });

  test("the default scheduler runs the batch after the current turn, not synchronously", async () => {
    const batch = createTurnBatch();
    const log: string[] = [];
    batch.add(review(batch, log, "a"));
    assert.deepEqual(log, []);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(log, ["eval a", "write a"]);
  });
});

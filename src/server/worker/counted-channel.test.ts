/** A counted channel hands every message to its handler once, in order, whether drained mid-work or by its listener. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { setImmediate as tick } from "node:timers/promises";
import { countedChannel, countedPoster } from "./counted-channel.js";

test("drain() takes at once what was posted, the listener takes the rest, and nothing is handled twice", async () => {
  const handled: number[] = [];
  const channel = countedChannel((m: number) => handled.push(m));
  const post = countedPoster(channel.worker);
  try {
    assert.equal(channel.drain(), false, "nothing posted");
    post(1);
    post(2);
    // No turn of the event loop between the posts and the drain: only drain() can have taken them.
    assert.equal(channel.drain(), true);
    assert.deepEqual(handled, [1, 2]);
    assert.equal(channel.drain(), false, "each message once");
    post(3);
    await tick();
    await tick();
    assert.deepEqual(handled, [1, 2, 3], "the listener took the one not drained");
    assert.equal(channel.drain(), false);
  } finally {
    channel.close();
    channel.worker.port.close();
  }
});

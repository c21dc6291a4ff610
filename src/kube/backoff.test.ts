import { test } from "node:test";
import assert from "node:assert/strict";
import { Backoff } from "./backoff.js";

test("the delay doubles up to the cap, jittered within the upper half, and resets after a success", () => {
  const low = new Backoff({ baseMs: 100, maxMs: 1000, random: { next: () => 0 } });
  assert.deepEqual(
    [low.next(), low.next(), low.next(), low.next(), low.next(), low.next()],
    [50, 100, 200, 400, 500, 500],
  );
  const high = new Backoff({ baseMs: 100, maxMs: 1000, random: { next: () => 0.999999 } });
  assert.deepEqual([high.next(), high.next(), high.next(), high.next(), high.next()], [100, 200, 400, 800, 1000]);
  assert.equal(high.failures, 5);
  high.reset();
  assert.equal(high.next(), 100);
});

test("two watchers with different random draws do not retry in lockstep", () => {
  let seed = 1;
  const a = new Backoff({
    baseMs: 1000,
    maxMs: 30000,
    random: { next: () => (seed = (seed * 16807) % 2147483647) / 2147483647 },
  });
  const b = new Backoff({ baseMs: 1000, maxMs: 30000, random: { next: () => 0.5 } });
  const da = [a.next(), a.next(), a.next()];
  const db = [b.next(), b.next(), b.next()];
  assert.notDeepEqual(da, db);
  for (const [i, d] of da.entries()) assert.ok(d >= 500 * 2 ** i && d <= 1000 * 2 ** i, `attempt ${i}: ${d}`);
});

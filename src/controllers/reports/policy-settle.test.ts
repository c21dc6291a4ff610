import { test } from "node:test";
import assert from "node:assert/strict";
import { PolicySettle } from "./policy-settle.js";

const settle = (): PolicySettle => new PolicySettle({ settleMs: 1000, maxWaitMs: 10_000 });

test("a changed policy set is scanned once it has been still for settleMs", () => {
  const s = settle();
  assert.equal(s.ready(1, 0), false);
  assert.equal(s.ready(1, 999), false);
  assert.equal(s.ready(1, 1000), true);
  // A pass begun then stops if the policies change under it.
  assert.equal(s.interruptible(1000), true);
});

test("each new generation restarts the wait", () => {
  const s = settle();
  s.ready(1, 0);
  assert.equal(s.ready(2, 800), false);
  assert.equal(s.ready(2, 1500), false);
  assert.equal(s.ready(2, 1800), true);
});

test("policies that never keep still do not starve the scan: after maxWaitMs a pass starts and runs to its end", () => {
  const s = settle();
  let ready = false;
  let t = 0;
  for (let g = 1; !ready; g++, t += 500) ready = s.ready(g, t);
  assert.equal(t - 500, 10_000, "the pass starts when the policies have been out of date for maxWaitMs");
  assert.equal(s.interruptible(t - 500), false, "and is not stopped by the next change");
  // Once it finished, the next change waits to settle again.
  s.finished();
  assert.equal(s.ready(100, 20_000), false);
  assert.equal(s.interruptible(20_000), true);
});

test("a pass stopped by a change keeps the time the policies went out of date", () => {
  const s = settle();
  s.ready(1, 0);
  assert.equal(s.ready(1, 1000), true);
  // The pass is stopped (no finished()); the policies keep changing every 900 ms.
  let t = 1000;
  let g = 2;
  while (!s.ready(g, t)) {
    t += 900;
    g++;
  }
  assert.ok(t >= 10_000 && t < 11_000, `forced at ${t} ms, counted from the first change`);
});

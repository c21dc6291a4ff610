/** The CEL cost meter and the caller's Interruption: once the interruption stops a call, every further node throws. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CostMeter } from "./cost.js";
import {
  beginInterruptible,
  endInterruptible,
  EvaluationInterrupted,
  isInterruption,
  Meter,
  TICKS_PER_CHECK,
} from "../interrupt/index.js";

test("after the Interruption trips, every node throws at once, so cel-js's all()/exists() cannot go on absorbing it", () => {
  const call = beginInterruptible(new Meter(), {
    ticks: 0,
    check() {
      throw new EvaluationInterrupted("review deadline passed");
    },
  });
  const cost = new CostMeter();
  cost.reset(1_000_000, false);
  const steps = 100_000;
  let thrown = 0;
  let first = -1;
  for (let i = 0; i < steps; i++) {
    try {
      cost.step();
    } catch (e) {
      if (first < 0) {
        first = i;
        assert.ok(isInterruption(e), "the first throw is the interruption");
      }
      thrown++;
    }
  }
  assert.throws(
    () => endInterruptible(call),
    (e) => isInterruption(e),
  );
  // The first check comes after TICKS_PER_CHECK ticks of 64 nodes; from there on each node throws
  // (before: one throw every 64 nodes, and a comprehension went on between them).
  assert.equal(first, TICKS_PER_CHECK * 64 - 1);
  assert.equal(thrown, steps - first);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { KEEP_SNAPSHOTS, KeptSnapshots } from "./wire.js";

test("the last KEEP_SNAPSHOTS snapshots are kept, with the recipes they name", () => {
  assert.equal(KEEP_SNAPSHOTS, 2);
  const kept = new KeptSnapshots();
  assert.deepEqual(kept.add(1, [10, 11]), { snapshots: [], recipes: [] });
  assert.deepEqual(kept.add(2, [10, 12]), { snapshots: [], recipes: [] });
  assert.ok(kept.has(1) && kept.has(2));
  assert.ok([10, 11, 12].every((r) => kept.holds(r)));
  // A third: the first goes, and 11, which only it named; 10 is still named by the second.
  assert.deepEqual(kept.add(3, [10, 13]), { snapshots: [1], recipes: [11] });
  assert.equal(kept.has(1), false);
  assert.equal(kept.holds(11), false);
  assert.ok(kept.holds(10) && kept.holds(12) && kept.holds(13));
  assert.deepEqual(kept.add(4, [14]), { snapshots: [2], recipes: [12] });
  assert.deepEqual(kept.add(5, [15]), { snapshots: [3], recipes: [10, 13] });
});

test("a snapshot sent again names its recipes again: none of them is reported gone", () => {
  const kept = new KeptSnapshots();
  kept.add(1, [10]);
  kept.add(2, [20]);
  assert.deepEqual(kept.add(2, [20, 21]), { snapshots: [], recipes: [] });
  assert.ok(kept.holds(20) && kept.holds(21) && kept.holds(10));
  // A recipe named twice in one snapshot is held once and goes once.
  assert.deepEqual(kept.add(3, [30, 30]), { snapshots: [1], recipes: [10] });
  assert.deepEqual(kept.add(4, [40]), { snapshots: [2], recipes: [20, 21] });
  assert.deepEqual(kept.add(5, [50]), { snapshots: [3], recipes: [30] });
});

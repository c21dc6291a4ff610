import { test } from "node:test";
import assert from "node:assert/strict";
import { CacheBudget, mib } from "./cache-budget.js";

test("objects are charged their size; an update replaces, a delete frees; over the limit reports false", () => {
  const b = new CacheBudget(100);
  assert.equal(b.set("ns/a", 40), true);
  assert.equal(b.set("ns/b", 40), true);
  assert.equal(b.set("ns/a", 60), true);
  assert.equal(b.usedBytes, 100);
  assert.equal(b.set("ns/a", 61), false);
  assert.equal(b.usedBytes, 101);
  b.delete("ns/b");
  assert.equal(b.usedBytes, 61);
  assert.equal(b.set("ns/c", 39), true);
  b.clear();
  assert.equal(b.usedBytes, 0);
  assert.equal(mib(3 * 1048576 + 104858), "3.1 MiB");
});

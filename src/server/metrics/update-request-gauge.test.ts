import { test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import { updateRequestGauge } from "./update-request-gauge.js";

const sample = /^kyverno_updaterequest_total\{resource_namespace="bylaw"\} (\d+)$/m;

test("kyverno_updaterequest_total: no sample until the cache has listed, then the count at each scrape", async () => {
  const registry = new Registry();
  let count: number | undefined;
  updateRequestGauge(registry, "bylaw", () => count);
  const before = await registry.metrics();
  assert.match(before, /^# TYPE kyverno_updaterequest_total gauge$/m);
  assert.doesNotMatch(before, sample, "no sample before the informer has listed");
  count = 3;
  assert.equal(sample.exec(await registry.metrics())?.[1], "3");
  count = 0;
  assert.equal(sample.exec(await registry.metrics())?.[1], "0", "every request done: 0, not the last count");
});

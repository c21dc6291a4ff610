/** The hot-path histogram and its count view render through prom-client's Registry like its own metrics. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import { HistogramFamily, type OnSeriesDropped } from "./series.js";

const noDrop: OnSeriesDropped = () => undefined;
const family = (registry: Registry, labels: string[] = ["k"], buckets = [1], max = 100, onDrop: OnSeriesDropped = noDrop) =>
  new HistogramFamily("d_seconds", "h", labels, buckets, max, onDrop).register(registry);

describe("HistogramFamily", () => {
  test("buckets are cumulative, with +Inf, _sum and _count", async () => {
    const registry = new Registry();
    const h = family(registry, ["k"], [0.1, 1, 10]);
    for (const v of [0.05, 0.1, 0.5, 3, 50]) h.observe(["a"], v);
    assert.equal(await registry.metrics(), [
      "# HELP d_seconds h",
      "# TYPE d_seconds histogram",
      'd_seconds_bucket{k="a",le="0.1"} 2',
      'd_seconds_bucket{k="a",le="1"} 3',
      'd_seconds_bucket{k="a",le="10"} 4',
      'd_seconds_bucket{k="a",le="+Inf"} 5',
      'd_seconds_sum{k="a"} 53.65',
      'd_seconds_count{k="a"} 5',
      "",
    ].join("\n"));
  });

  test("unsorted or repeated buckets are sorted and de-duplicated", async () => {
    const registry = new Registry();
    family(registry, [], [1, 0.5, 1]).observe([], 0.7);
    const les = [...(await registry.metrics()).matchAll(/le="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(les, ["0.5", "1", "+Inf"]);
  });

  test("negative or non-finite observations count as 0, so the sum stays finite", async () => {
    const registry = new Registry();
    const h = family(registry);
    for (const v of [Number.NaN, -2, Number.POSITIVE_INFINITY, 0.5]) h.observe(["a"], v);
    assert.match(await registry.metrics(), /d_seconds_bucket\{k="a",le="1"\} 4\n.*\nd_seconds_sum\{k="a"\} 0\.5\nd_seconds_count\{k="a"\} 4/);
  });

  test("label values are escaped in the text", async () => {
    const registry = new Registry();
    family(registry).observe(['say "hi"\\\n'], 0.1);
    assert.match(await registry.metrics(), /d_seconds_count\{k="say \\"hi\\"\\\\\\n"\} 1/);
  });

  test("a full family refuses new label sets but keeps counting existing ones", async () => {
    const registry = new Registry();
    const dropped: string[] = [];
    const h = family(registry, ["k"], [1], 2, (n) => {
      dropped.push(n);
    });
    for (const k of ["1", "2", "3", "1"]) h.observe([k], 0.1);
    const text = await registry.metrics();
    assert.match(text, /d_seconds_count\{k="1"\} 2/);
    assert.doesNotMatch(text, /k="3"/);
    assert.deepEqual(dropped, ["d_seconds"]);
  });

  test("resetMetrics clears the series", async () => {
    const registry = new Registry();
    family(registry).observe(["a"], 0.5);
    registry.resetMetrics();
    assert.doesNotMatch(await registry.metrics(), /d_seconds_count/);
  });

  test("two metrics with one name in one registry are refused", () => {
    const registry = new Registry();
    family(registry);
    assert.throws(() => family(registry), /already been registered/);
  });
});

describe("CountView", () => {
  test("exposes each series' observation count as a counter", async () => {
    const registry = new Registry();
    const h = family(registry);
    h.countAs("d_total", "events").register(registry);
    h.observe(["a"], 0.1);
    h.observe(["a"], 2);
    h.observe(["b"], 0.1);
    assert.ok((await registry.metrics()).includes('# HELP d_total events\n# TYPE d_total counter\nd_total{k="a"} 2\nd_total{k="b"} 1\n'));
  });
});

/** The hot-path histogram and its count view render through prom-client's Registry like its own metrics. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import { HistogramFamily, type OnSeriesDropped } from "./series.js";

const noDrop: OnSeriesDropped = () => undefined;
const family = (
  registry: Registry,
  labels: string[] = ["k"],
  buckets = [1],
  max = 100,
  onDrop: OnSeriesDropped = noDrop,
) => new HistogramFamily("d_seconds", "h", labels, buckets, max, onDrop).register(registry);

describe("HistogramFamily", () => {
  test("buckets are cumulative, with +Inf, _sum and _count", async () => {
    const registry = new Registry();
    const h = family(registry, ["k"], [0.1, 1, 10]);
    for (const v of [0.05, 0.1, 0.5, 3, 50]) h.observe(["a"], v);
    assert.equal(
      await registry.metrics(),
      [
        "# HELP d_seconds h",
        "# TYPE d_seconds histogram",
        'd_seconds_bucket{k="a",le="0.1"} 2',
        'd_seconds_bucket{k="a",le="1"} 3',
        'd_seconds_bucket{k="a",le="10"} 4',
        'd_seconds_bucket{k="a",le="+Inf"} 5',
        'd_seconds_sum{k="a"} 53.65',
        'd_seconds_count{k="a"} 5',
        "",
      ].join("\n"),
    );
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
    assert.match(
      await registry.metrics(),
      /d_seconds_bucket\{k="a",le="1"\} 4\n.*\nd_seconds_sum\{k="a"\} 0\.5\nd_seconds_count\{k="a"\} 4/,
    );
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

  test("a refused keyed label set is remembered: later observations are dropped and counted, and no series appears", async () => {
    const registry = new Registry();
    const dropped: string[] = [];
    const h = family(registry, ["scope", "k"], [1], 1, (n) => {
      dropped.push(n);
    });
    const scope = {};
    h.observeNew(scope, ["a"], ["s", "a"], 0.1);
    assert.equal(h.observeKeyed(scope, ["b"], 0.1), false, "b was never seen");
    h.observeNew(scope, ["b"], ["s", "b"], 0.1);
    assert.deepEqual(dropped, ["d_seconds"], "the family is full, so b is refused");
    assert.equal(h.observeKeyed(scope, ["b"], 0.1), true, "the refusal is remembered");
    assert.equal(h.observeKeyed(scope, ["a"], 0.1), true);
    assert.deepEqual(dropped, ["d_seconds", "d_seconds"], "each later observation of b still counts as dropped");
    const text = await registry.metrics();
    assert.match(text, /d_seconds_count\{scope="s",k="a"\} 2\n/);
    assert.doesNotMatch(text, /k="b"/);
  });

  test("resetMetrics clears the series", async () => {
    const registry = new Registry();
    family(registry).observe(["a"], 0.5);
    registry.resetMetrics();
    assert.doesNotMatch(await registry.metrics(), /d_seconds_count/);
  });

  test("keyed observations land in the series of their own scope and keys, also when they alternate past the recent cells", async () => {
    const registry = new Registry();
    const h = family(registry, ["scope", "k1", "k2"]);
    const scopeA = {};
    const scopeB = {};
    const keys = ["x", "y"];
    const record = (scope: object, name: string, k1: string, k2: string, v: number): void => {
      keys[0] = k1; // one reused key list, as the per-result metrics pass it
      keys[1] = k2;
      if (!h.observeKeyed(scope, keys, v)) h.observeNew(scope, keys, [name, k1, k2], v);
    };
    // Twelve key pairs per scope cycled three times: more than a scope remembers, so hits and misses mix.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 12; i++) {
        record(scopeA, "a", `r${i}`, i % 2 === 0 ? "pass" : "fail", 0.5);
        record(scopeB, "b", `r${i}`, "pass", 2);
      }
    }
    const text = await registry.metrics();
    for (let i = 0; i < 12; i++) {
      assert.ok(
        text.includes(`d_seconds_count{scope="a",k1="r${i}",k2="${i % 2 === 0 ? "pass" : "fail"}"} 3\n`),
        `a r${i}`,
      );
      assert.ok(
        text.includes(`d_seconds_sum{scope="a",k1="r${i}",k2="${i % 2 === 0 ? "pass" : "fail"}"} 1.5\n`),
        `a r${i} sum`,
      );
      assert.ok(text.includes(`d_seconds_count{scope="b",k1="r${i}",k2="pass"} 3\n`), `b r${i}`);
    }
    assert.equal(text.match(/d_seconds_count\{/g)?.length, 24, "one series per scope and key pair");
  });

  test("after resetMetrics, keyed observations start new series instead of feeding the cleared ones", async () => {
    const registry = new Registry();
    const h = family(registry, ["scope", "k"]);
    const scope = {};
    assert.equal(h.observeKeyed(scope, ["r"], 1), false);
    h.observeNew(scope, ["r"], ["s", "r"], 1);
    assert.equal(h.observeKeyed(scope, ["r"], 1), true);
    registry.resetMetrics();
    assert.equal(h.observeKeyed(scope, ["r"], 1), false, "the remembered cell went with the reset");
    h.observeNew(scope, ["r"], ["s", "r"], 0.5);
    assert.match(await registry.metrics(), /d_seconds_count\{scope="s",k="r"\} 1\n/);
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
    assert.ok(
      (await registry.metrics()).includes(
        '# HELP d_total events\n# TYPE d_total counter\nd_total{k="a"} 2\nd_total{k="b"} 1\n',
      ),
    );
  });
});

describe("RenderLane", () => {
  test("families sharing a lane build in separate turns of the event loop (so I/O is served in between)", async () => {
    const { RenderLane } = await import("./series.js");
    // Counts event loop iterations: an immediate queued from an immediate runs in the next iteration.
    let iteration = 0;
    let counting = true;
    const count = (): void => {
      iteration++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const lane = new RenderLane();
    const seen: number[] = [];
    await Promise.all(
      ["a", "b", "c"].map(async () => {
        await lane.turn();
        seen.push(iteration);
      }),
    );
    counting = false;
    assert.equal(new Set(seen).size, 3, `iterations ${seen.join(", ")}`);
  });
});

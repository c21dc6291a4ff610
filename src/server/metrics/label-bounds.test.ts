/**
 * The hostile label workloads of issue 14 against the metrics: 50 reviews with a 100 KB namespace,
 * and 10,000 namespaces, each through 20 policies' results. Before the bounds, the first made
 * every scrape fail (RSS 2.9 GB) and the second made a 200 MB scrape. Now `/metrics` stays under
 * 5 MB, parses, and still counts every review. (Render time is printed by bench/metrics-scrape.ts.)
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import type { CompiledPolicy, RuleResult } from "../../engine/index.js";
import type { ReviewFacts } from "../types.js";
import { createMetrics } from "./create-metrics.js";
import { boundLabelValue, LabelValueCap, MAX_LABEL_VALUE_LENGTH, OVERFLOW_LABEL } from "./label-bounds.js";
import { parseExposition } from "../../../test/support/exposition.js";
import { compiled, validatePolicy } from "../../../test/support/metrics-policies.js";

const FIVE_MB = 5 * 1024 * 1024;
const policies: CompiledPolicy[] = Array.from({ length: 20 }, (_, i) => compiled(validatePolicy(`policy-${i}`)));
const results = (p: CompiledPolicy, n: number) => ({
  policy: p,
  resource: {},
  rules: Array.from({ length: 3 }, (_, r): RuleResult => ({
    rule: `rule-${r}`,
    type: "Validation",
    status: (n + r) % 3 === 0 ? "fail" : "pass",
    message: "m",
  })),
});

/** One review of a Pod in `namespace` through every policy, as the validate handler reports it. */
function review(metrics: ReturnType<typeof createMetrics>, namespace: string, n: number): void {
  const facts: ReviewFacts = { kind: "Pod", namespace, operation: "CREATE", dryRun: false };
  for (const p of policies) metrics.policyResults(facts, results(p, n), "validate", 0.0001);
  metrics.admission({
    uid: `u${n}`,
    webhook: "validate",
    kind: "Pod",
    namespace,
    name: "p",
    operation: "CREATE",
    allowed: n % 2 === 0,
    dryRun: false,
    durationSeconds: 0.002,
    warnings: 0,
  });
}

function requestsTotal(text: string): number {
  return parseExposition(text)
    .filter((s) => s.name === "kyverno_admission_requests_total")
    .reduce((a, s) => a + s.value, 0);
}

describe("label bounds", () => {
  test("a long value is cut to the maximum, ending in an ellipsis; short ones are kept as they are", () => {
    assert.equal(boundLabelValue("team-a"), "team-a");
    const cut = boundLabelValue("n".repeat(100_000));
    assert.equal(cut.length, MAX_LABEL_VALUE_LENGTH);
    assert.ok(cut.endsWith("…"));
  });

  test("a label keeps its first distinct values; the rest share the overflow value, and long values count once by their cut", () => {
    const cap = new LabelValueCap(2);
    assert.equal(cap.labelFor("a"), "a");
    assert.equal(cap.labelFor("x".repeat(1000)), boundLabelValue("x".repeat(1000)));
    assert.equal(cap.labelFor("x".repeat(2000)), boundLabelValue("x".repeat(1000)), "same cut, same value");
    assert.equal(cap.labelFor("b"), OVERFLOW_LABEL);
    assert.equal(cap.labelFor("a"), "a");
    assert.equal(cap.size, 2);
  });

  test("50 reviews with a 100 KB namespace: the scrape succeeds, stays under 5 MB and counts every review", async () => {
    const registry = new Registry();
    const metrics = createMetrics({ registry, version: "v" });
    for (let i = 0; i < 50; i++) review(metrics, `${i}-${"n".repeat(100_000)}`, i);
    const text = await registry.metrics();
    assert.ok(Buffer.byteLength(text) < FIVE_MB, `${Buffer.byteLength(text)} bytes`);
    assert.ok(!text.includes("n".repeat(MAX_LABEL_VALUE_LENGTH)), "no label value is longer than the cap");
    assert.equal(requestsTotal(text), 50);
  });

  test("10,000 namespaces: the scrape stays under 5 MB; later namespaces are counted under _overflow or dropped with a count", async () => {
    const registry = new Registry();
    const metrics = createMetrics({ registry, version: "v" });
    for (let i = 0; i < 10_000; i++) review(metrics, `ns-${i}`, i);
    const text = await registry.metrics();
    const size = Buffer.byteLength(text);
    assert.ok(size < FIVE_MB, `${size} bytes`);
    const samples = parseExposition(text);
    assert.equal(requestsTotal(text), 10_000, "every review is counted, in its namespace or under _overflow");
    assert.ok(samples.some((s) => s.labels["resource_namespace"] === OVERFLOW_LABEL));
    const namespaces = new Set(samples.map((s) => s.labels["resource_namespace"]).filter((n) => n !== undefined));
    assert.ok(namespaces.size <= 201, `${namespaces.size} namespaces`);
    const dropped = samples
      .filter((s) => s.name === "bylaw_metrics_series_dropped_total")
      .reduce((a, s) => a + s.value, 0);
    assert.ok(dropped > 0, "the rule results past the size budget are dropped, and counted");
  });

  test("a smaller budget bounds the text accordingly; reviews past it are folded into _overflow, so their totals stay right", async () => {
    const registry = new Registry();
    const metrics = createMetrics({ registry, version: "v", maxSeriesBytes: 256 * 1024 });
    for (let i = 0; i < 1_000; i++) review(metrics, `ns-${i}`, i);
    const text = await registry.metrics();
    assert.ok(Buffer.byteLength(text) < 300 * 1024);
    const samples = parseExposition(text);
    assert.ok(
      samples.filter((s) => s.name === "kyverno_admission_requests_total").length < 100,
      "far fewer series than namespaces",
    );
    assert.equal(requestsTotal(text), 1_000);
    // Rule results have many more label sets than the reserve holds at this size: the rest are dropped, and counted.
    const dropped = samples.filter(
      (s) =>
        s.name === "bylaw_metrics_series_dropped_total" &&
        s.labels["metric"] === "kyverno_policy_execution_duration_seconds",
    );
    assert.ok((dropped[0]?.value ?? 0) > 0);
  });
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { entryProblems, labelProblems } from "./loki-limits.js";

const now = 1_800_000_000_000_000_000n;

test("labels: Loki's name rule, the reserved __ prefix, at most 15, name and value sizes, at least one", () => {
  assert.deepEqual(labelProblems({ job: "kube-bench", kube_bench_gb_cis_id: "4.1.9" }), []);
  assert.match(labelProblems({ "kube-bench": "x" }).join(), /label name "kube-bench" is not/);
  assert.match(labelProblems({ __name__: "x" }).join(), /starts with __/);
  assert.match(labelProblems({}).join(), /at least one label/);
  const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`l${i}`, "v"]));
  assert.match(labelProblems(sixteen).join(), /16 labels; Loki accepts at most 15/);
  assert.match(labelProblems({ a: "v".repeat(2049) }).join(), /label a's value is longer than 2048 bytes/);
  assert.deepEqual(labelProblems({ a: "v".repeat(2048) }), []);
});

test("entries: a week back to ten minutes ahead, lines up to 256 KiB, structured metadata up to 128 entries and 64 KiB", () => {
  const entry = (over: object) => ({ timestampNs: now, line: "x", ...over });
  assert.deepEqual(entryProblems(entry({}), now), []);
  assert.match(entryProblems(entry({ timestampNs: now - 8n * 86_400_000_000_000n }), now).join(), /older than a week/);
  assert.match(
    entryProblems(entry({ timestampNs: now + 11n * 60_000_000_000n }), now).join(),
    /10 minutes in the future/,
  );
  assert.match(entryProblems(entry({ line: "x".repeat(256 * 1024 + 1) }), now).join(), /line_too_long/);
  const many = Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`k${i}`, "v"]));
  assert.match(entryProblems(entry({ metadata: many }), now).join(), /129 structured metadata entries/);
  assert.match(
    entryProblems(entry({ metadata: { audit: "a".repeat(65 * 1024) } }), now).join(),
    /structured metadata of/,
  );
});

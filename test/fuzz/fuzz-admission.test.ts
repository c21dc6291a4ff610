/**
 * 10,000 generated AdmissionReviews (valid, mutated, wrong types, broken text) through the HTTP
 * layer's parser and `bylaw serve`'s route handlers, alone and batched: every answer is a 400
 * with a reason or a valid AdmissionReview for the request's uid, and nothing throws. Seeded, so
 * a failure names the seed that reproduces it (`generateCase(seed)`). bench/fuzz-admission.ts runs 10⁶.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateCase } from "./admission-review-generator.js";
import { runCase } from "./check-answer.js";
import { fuzzRoutes } from "./fuzz-setup.js";

test(
  "10,000 fuzzed AdmissionReviews: every answer is a 400 or a valid AdmissionReview, and no handler throws",
  { timeout: 300_000 },
  async () => {
    const routes = fuzzRoutes();
    const counts: Record<string, number> = {};
    const failures: string[] = [];
    for (let seed = 1; seed <= 10_000; seed++) {
      const c = generateCase(seed);
      const v = await runCase(c, routes);
      const key = v.kind === "answered" ? `${c.shape} ${v.status}` : v.kind;
      counts[key] = (counts[key] ?? 0) + 1;
      if (v.kind !== "answered" && failures.length < 10)
        failures.push(`seed ${seed} (${c.shape}, ${c.path}): ${v.kind}: ${v.reason}`);
    }
    assert.deepEqual(failures, [], JSON.stringify(counts));
    // The generator reaches both sides: reviews that are evaluated, and refusals.
    const answered = (status: number) =>
      Object.entries(counts)
        .filter(([k]) => k.endsWith(` ${status}`))
        .reduce((a, [, n]) => a + n, 0);
    assert.ok(answered(200) > 2_000 && answered(400) > 2_000, JSON.stringify(counts));
    assert.ok(
      (counts["mutated 200"] ?? 0) > 500,
      `mutated reviews are evaluated, not only refused: ${JSON.stringify(counts)}`,
    );
  },
);

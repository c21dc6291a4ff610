/**
 * `npm run bench:fuzz`: 10⁶ generated AdmissionReviews (FUZZ_CASES to change; seeds 1..N) through
 * the HTTP layer's parser and `bylaw serve`'s handlers, alone and batched, as test/fuzz does for
 * 10⁴. Prints the count of crashes (a handler threw) and of wrong-shape answers (neither a 400
 * with a reason nor a valid AdmissionReview for the uid), which must both be 0, with the seeds of
 * the first failures (`generateCase(seed)` reproduces one). Figures, never verdicts.
 */
import { performance } from "node:perf_hooks";
import { generateCase } from "../test/fuzz/admission-review-generator.js";
import { runCase } from "../test/fuzz/check-answer.js";
import { fuzzRoutes } from "../test/fuzz/fuzz-setup.js";

async function main(): Promise<void> {
  const total = Number(process.env["FUZZ_CASES"] ?? 1_000_000);
  const routes = fuzzRoutes();
  const counts: Record<string, number> = {};
  const failures: string[] = [];
  const started = performance.now();
  for (let seed = 1; seed <= total; seed++) {
    const c = generateCase(seed);
    const v = await runCase(c, routes);
    const key = v.kind === "answered" ? `answered ${v.status}` : v.kind;
    counts[key] = (counts[key] ?? 0) + 1;
    if (v.kind !== "answered" && failures.length < 20)
      failures.push(`seed ${seed} (${c.shape}, ${c.path}): ${v.kind}: ${v.reason.slice(0, 300)}`);
    if (seed % 100_000 === 0)
      console.log(`fuzz: ${seed} cases, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `fuzz: ${total} cases in ${seconds.toFixed(0)} s (${((seconds / total) * 1e6).toFixed(0)} µs each): ${counts["answered 200"] ?? 0} AdmissionReviews, ${counts["answered 400"] ?? 0} 400s`,
  );
  console.log(`fuzz: crashes ${counts["crash"] ?? 0}, wrong-shape answers ${counts["wrong-shape"] ?? 0}`);
  for (const f of failures) console.log(`fuzz: ${f}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

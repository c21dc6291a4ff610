/**
 * `node dist/bench/first-reviews.js`: what the first reviews after a policy set loads cost, in-process
 * (issue 39; printed figures, not a timed test). The cluster bench sees its first creates after a
 * load cost two to three times the later ones; this bench tells whether that is the policies' own
 * first-use work (kept per compiled policy) or the engine's code warming up (once per thread): the
 * corpus's ClusterPolicies (about 350) are compiled into a fresh process and `BENCH_REVIEWS` (default
 * 300) Pod CREATE reviews go through the validating handler one at a time, each timed; then the same
 * documents are compiled again, as new policy objects, and 60 more reviews are timed.
 * `BENCH_WARM_UP=N` first runs N reviews against the shipped pss-restricted set (another set
 * entirely), to see how much of the first reviews' cost a warm-up with other policies takes away.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { JsonObject } from "../src/engine/index.js";
import { AdmissionPlans } from "../src/server/admission/plans.js";
import { handleValidate } from "../src/server/admission/validate-handler.js";
import { fakeDeps, reviewOf } from "../test/support/fake-admission-deps.js";
import { writeCorpusPolicies } from "./cluster/corpus-policies.js";
import { restrictedPod } from "./cluster/policies.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const REVIEWS = Number(process.env["BENCH_REVIEWS"] ?? 300);
const WARM_UP = Number(process.env["BENCH_WARM_UP"] ?? 0);

/** The shipped pss-restricted policies (deploy/components/policy-set-pss-restricted). */
function shippedPss(): JsonObject[] {
  const dir = join(repoRoot, "deploy", "components", "policy-set-pss-restricted", "policies");
  return readdirSync(dir)
    .filter((f) => f.startsWith("pss-"))
    .map((f) => parse(readFileSync(join(dir, f), "utf8")) as JsonObject);
}

/** Milliseconds of each of `n` Pod CREATE reviews against a fresh compile of `policies`. */
function timedReviews(policies: readonly JsonObject[], n: number, prefix: string): number[] {
  const fake = fakeDeps({ policies, realClock: true, deadlineSeconds: 60 });
  const deps = { ...fake.deps, plans: new AdmissionPlans(), indexCandidates: true };
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const body = JSON.stringify(reviewOf(restrictedPod(`${prefix}-${i}`, "node-0") as JsonObject));
    const t0 = performance.now();
    handleValidate(JSON.parse(body) as JsonObject, deps);
    times.push(performance.now() - t0);
  }
  return times;
}

function mean(times: readonly number[]): string {
  return (times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)).toFixed(2);
}

function main(): void {
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  if (!existsSync(join(corpus, "pod-security"))) {
    console.log(`first-reviews: corpus not found at ${corpus}; skipped`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "bylaw-bench-first-"));
  writeCorpusPolicies(corpus, dir, "cluster-policies");
  const policies = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => parse(readFileSync(join(dir, f), "utf8")) as JsonObject);
  console.log(
    `first-reviews: node ${process.version}; ${policies.length} corpus ClusterPolicies; Pod CREATE reviews one at a time, ms each`,
  );
  if (WARM_UP > 0) {
    const t = timedReviews(shippedPss(), WARM_UP, "w");
    console.log(
      `warm-up: ${WARM_UP} reviews against the ${shippedPss().length} shipped pss-restricted policies, ${t.reduce((a, b) => a + b, 0).toFixed(0)} ms`,
    );
  }
  console.log("| policy set | review 1 | reviews 1–10 (mean) | 11–50 | 51 on |");
  console.log("|---|---|---|---|---|");
  const first = timedReviews(policies, Math.max(REVIEWS, 60), "a");
  const again = timedReviews(policies, 60, "b");
  for (const [label, t] of [
    ["loaded into a fresh process", first],
    ["the same documents compiled again (new policy objects, the engine's code warm)", again],
  ] as const)
    console.log(
      `| ${label} | ${(t[0] ?? 0).toFixed(1)} | ${mean(t.slice(0, 10))} | ${mean(t.slice(10, 50))} | ${mean(t.slice(50))} |`,
    );
}

main();

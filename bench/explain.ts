/**
 * What `--explain` costs, and that a run without it costs what it did: `bylaw test` in-process over
 * the conformance corpus, without and with explanations, alternating (A B B A …) so that a shared
 * machine's load falls on both. Prints CPU time per run and per row, and how many explanations the
 * explaining runs built. For "no more than before", run it at two commits: the A arm is the plain
 * run of each. `npm run bench:explain`.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { offlineEngine } from "../src/cli/offline/offline-engine.js";
import { runSuites } from "../src/cli/test-suite/run-suite.js";
import { readManifest } from "../test/conformance/manifest.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const corpus =
  process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? "3");

async function pass(files: readonly { file: string; dir: string }[], explain: boolean) {
  const before = process.cpuUsage();
  let rows = 0;
  let explanations = 0;
  for (const { file, dir } of files) {
    const suites = await runSuites(file, offlineEngine, dir, { explain });
    for (const s of suites) {
      rows += s.results.length;
      explanations += s.explanations?.length ?? 0;
    }
  }
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, rows, explanations };
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function main(): Promise<void> {
  if (!existsSync(join(corpus, "MANIFEST.tsv"))) {
    console.log(`explain: corpus not found at ${corpus}; skipped`);
    return;
  }
  const manifest = await readManifest(join(corpus, "MANIFEST.tsv"));
  const files = manifest.map((s) => ({
    file: join(corpus, s.suiteDir, ".kyverno-test", "kyverno-test.yaml"),
    dir: s.suiteDir,
  }));
  // One warm-up of each, not counted: YAML parsing, compilation and the JIT.
  await pass(files, false);
  await pass(files, true);
  const plain: number[] = [];
  const explained: number[] = [];
  let rows = 0;
  let count = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? [false, true] : [true, false];
    for (const explain of order) {
      const r = await pass(files, explain);
      (explain ? explained : plain).push(r.cpuMs);
      rows = r.rows;
      if (explain) count = r.explanations;
    }
  }
  const a = median(plain);
  const b = median(explained);
  console.log(
    `explain: node ${process.version}, ${manifest.length} suites, ${rows} rows, ${ROUNDS} rounds (median CPU)`,
  );
  console.log(`explain: without --explain ${a.toFixed(0)} ms CPU (${((a * 1000) / rows).toFixed(0)} µs per row)`);
  console.log(
    `explain: with --explain    ${b.toFixed(0)} ms CPU (${((b * 1000) / rows).toFixed(0)} µs per row), ${count} explanations, ×${(b / a).toFixed(2)}`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

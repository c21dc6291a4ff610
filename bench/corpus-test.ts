/**
 * Wall time of `bylaw test` over the whole conformance corpus: once through the real binary (process
 * start, discovery, YAML, evaluation, output) and once in-process per suite, with time per row.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { offlineEngine } from "../src/cli/offline/offline-engine.js";
import { runSuite } from "../src/cli/test-suite/run-suite.js";
import { readManifest } from "../test/conformance/manifest.js";

export async function benchCorpusTest(repoRoot: string): Promise<void> {
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  if (!existsSync(join(corpus, "MANIFEST.tsv"))) {
    console.log(`corpus-test: corpus not found at ${corpus}; skipped`);
    return;
  }
  const manifest = await readManifest(join(corpus, "MANIFEST.tsv"));
  const rows = manifest.reduce((n, s) => n + s.checks, 0);

  const t0 = performance.now();
  const child = spawnSync(process.execPath, [join(repoRoot, "bin", "bylaw.js"), "test", corpus, "-o", "bylaw-json"], {
    maxBuffer: 256 * 1024 * 1024,
  });
  const cliMs = performance.now() - t0;
  console.log(
    `corpus-test: \`bylaw test\` CLI over ${manifest.length} suites / ${rows} rows: ${(cliMs / 1000).toFixed(2)} s wall (${((cliMs * 1000) / rows).toFixed(0)} µs per row; exit ${child.status})`,
  );

  const t1 = performance.now();
  let evaluated = 0;
  for (const s of manifest) {
    const suite = await runSuite(
      join(corpus, s.suiteDir, ".kyverno-test", "kyverno-test.yaml"),
      offlineEngine,
      s.suiteDir,
    );
    evaluated += suite.results.length;
  }
  const inMs = performance.now() - t1;
  console.log(
    `corpus-test: in-process runSuite over the corpus: ${(inMs / 1000).toFixed(2)} s (${((inMs * 1000) / Math.max(evaluated, 1)).toFixed(0)} µs per row, ${evaluated} rows)`,
  );
  const mem = process.memoryUsage();
  console.log(
    `corpus-test: heap used ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB, rss ${(mem.rss / 2 ** 20).toFixed(0)} MiB`,
  );
}

/**
 * `npm run conformance`: run every suite of ../shared/conformance/kyverno-policies through the same
 * code as `bylaw test`, print matching rows per category and in total, and enforce the ratchet.
 *
 *   --update            rewrite passing-rows.txt from the rows that pass now (never adds a failing row)
 *   --category NAME     only suites of one MANIFEST category
 *   --suite TEXT        only suites whose folder contains TEXT
 *   --failures          list every failing row with its reason
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { offlineEngine } from "../../src/cli/offline/offline-engine.js";
import { runSuites } from "../../src/cli/test-suite/run-suite.js";
import type { RowResult } from "../../src/cli/test-suite/types.js";
import { gapFor, readKnownGaps } from "./known-gaps.js";
import { readManifest } from "./manifest.js";
import { readRatchet, regressions, writeRatchet } from "./ratchet.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "..", "..", "..");
const sourceDir = join(repoRoot, "test", "conformance");

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      update: { type: "boolean", default: false },
      category: { type: "string" },
      suite: { type: "string" },
      failures: { type: "boolean", default: false },
    },
  });
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  if (!existsSync(join(corpus, "MANIFEST.tsv"))) {
    console.log(`conformance: corpus not found at ${corpus}; skipping (set BYLAW_CONFORMANCE_DIR to run it)`);
    return 0;
  }
  const manifest = (await readManifest(join(corpus, "MANIFEST.tsv")))
    .filter((s) => values.category === undefined || s.category === values.category)
    .filter((s) => values.suite === undefined || s.suiteDir.includes(values.suite));
  const gaps = await readKnownGaps(join(sourceDir, "known-gaps.tsv"));
  const started = performance.now();
  const perCategory = new Map<string, { rows: number; ok: number }>();
  const passing = new Set<string>();
  const failing: RowResult[] = [];
  let suiteErrors = 0;
  /** Checks that gave a row (the others are not checked: their suites warn why, e.g. a patched resource missing from its file). */
  let checked = 0;
  for (const [i, entry] of manifest.entries()) {
    if (process.stderr.isTTY && i % 20 === 0) process.stderr.write(`\rconformance: ${i}/${manifest.length} suites`);
    const file = join(corpus, entry.suiteDir, ".kyverno-test", "kyverno-test.yaml");
    const suites = await runSuites(file, offlineEngine, entry.suiteDir);
    suiteErrors += suites.filter((s) => s.error !== undefined).length;
    const tally = perCategory.get(entry.category) ?? { rows: 0, ok: 0 };
    tally.rows += entry.checks;
    // A check passes when all its rows do (a name standing for several resources gives a row each).
    const rows = suites.flatMap((s) => s.results);
    rows.forEach((row, i) => {
      if (row.sameCheck === true) return;
      checked++;
      let n = i + 1;
      while (rows[n]?.sameCheck === true) n++;
      if (rows.slice(i, n).every((r) => r.ok)) {
        tally.ok++;
        passing.add(row.id);
      }
    });
    failing.push(...rows.filter((r) => !r.ok));
    perCategory.set(entry.category, tally);
  }
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  const seconds = (performance.now() - started) / 1000;
  let total = 0;
  let ok = 0;
  for (const [category, t] of [...perCategory].sort()) {
    total += t.rows;
    ok += t.ok;
    console.log(
      `  ${category.padEnd(22)} ${String(t.ok).padStart(5)} of ${String(t.rows).padStart(5)} rows match (${pct(t.ok, t.rows)})`,
    );
  }
  const known = failing.filter((r) => gapFor(r.id, gaps) !== undefined).length;
  console.log(
    `conformance: ${ok} of ${total} rows match (${pct(ok, total)}); ${failing.length} rows fail (${known} in known-gaps), ${total - checked} not checked, ${suiteErrors} suites errored; ${seconds.toFixed(1)} s`,
  );
  if (values.failures) {
    for (const r of failing) {
      const gap = gapFor(r.id, gaps);
      console.log(
        `FAIL ${r.id} [${r.policy}/${r.rule}] ${r.reason}${gap ? ` (known gap: ${gap.reason})` : ""} — ${r.message.slice(0, 300)}`,
      );
    }
  }
  const ratchetPath = join(sourceDir, "passing-rows.txt");
  const listed = await readRatchet(ratchetPath);
  const filtered = values.category !== undefined || values.suite !== undefined;
  const broken = regressions(
    filtered ? new Set([...listed].filter((id) => manifest.some((m) => id.startsWith(`${m.suiteDir}::`)))) : listed,
    passing,
  );
  if (values.update) {
    if (filtered) {
      console.error("conformance: --update needs the whole corpus (no --category/--suite)");
      return 2;
    }
    await writeRatchet(ratchetPath, passing);
    console.log(
      `conformance: ratchet updated: ${passing.size} passing rows (${passing.size - listed.size >= 0 ? "+" : ""}${passing.size - listed.size})`,
    );
    return 0;
  }
  if (broken.length > 0) {
    console.error(`conformance: ${broken.length} rows in the ratchet no longer pass:`);
    for (const id of broken.slice(0, 50)) console.error(`  ${id}`);
    return 1;
  }
  console.log(`conformance: ratchet holds (${listed.size} rows listed)`);
  return 0;
}

function pct(a: number, b: number): string {
  return b === 0 ? "n/a" : `${((100 * a) / b).toFixed(1)}%`;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`conformance: ${(e as Error).stack ?? String(e)}`);
    process.exit(1);
  },
);

/**
 * `npm run side-by-side -- --kyverno PATH`: Kyverno's own CLI and Bylaw on every suite of
 * ../shared/conformance/kyverno-policies, compared row by row (compare-rows.ts): `kyverno test
 * SUITE -o json --detailed-results` beside the code of `bylaw test`. Prints the counts per category
 * and the first differences; `--out FILE` writes every difference as TSV (suite, what, row, kyverno,
 * bylaw). Kyverno's CLI is not in CI: build it from its module (`go build ./cmd/cli/kubectl-kyverno`
 * in github.com/kyverno/kyverno@v1.19.0).
 *
 *   --kyverno PATH      Kyverno's CLI binary (required)
 *   --category NAME     only suites of one MANIFEST category
 *   --suite TEXT        only suites whose folder contains TEXT
 *   --jobs N            Kyverno processes at once (default 2)
 *   --show N            differences printed (default 40)
 *   --out FILE          every difference, as TSV
 */
import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { offlineEngine } from "../../src/cli/offline/offline-engine.js";
import { runSuites } from "../../src/cli/test-suite/run-suite.js";
import { readManifest, type SuiteEntry } from "../conformance/manifest.js";
import { compareRows, kyvernoRows, type RowDifference } from "./compare-rows.js";
import { pool } from "../support/pool.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "..", "..", "..");

interface KyvernoRun {
  readonly stdout: string;
  readonly error?: string;
}

function runKyverno(binary: string, suite: string): Promise<KyvernoRun> {
  return new Promise((done) => {
    execFile(
      binary,
      ["test", suite, "-o", "json", "--detailed-results", "--remove-color"],
      { timeout: 180_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, KYVERNO_EXPERIMENTAL: "true" } },
      (error, stdout, stderr) => {
        // A failing row exits 1 and still prints its rows; only output without rows is an error.
        const failed = error !== null && !stdout.includes("\n[");
        done(failed ? { stdout, error: `${error.message.split("\n")[0] ?? ""} ${stderr.slice(0, 300)}` } : { stdout });
      },
    );
  });
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      kyverno: { type: "string" },
      category: { type: "string" },
      suite: { type: "string" },
      jobs: { type: "string", default: "2" },
      show: { type: "string", default: "40" },
      out: { type: "string" },
    },
  });
  if (values.kyverno === undefined || !existsSync(values.kyverno)) {
    console.error("side-by-side: --kyverno PATH names Kyverno's CLI binary (go build ./cmd/cli/kubectl-kyverno)");
    return 2;
  }
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  const manifest = (await readManifest(join(corpus, "MANIFEST.tsv")))
    .filter((s) => values.category === undefined || s.category === values.category)
    .filter((s) => values.suite === undefined || s.suiteDir.includes(values.suite));
  const started = performance.now();
  const perCategory = new Map<string, { pairs: number; outcome: number; message: number; unpaired: number }>();
  const all: { suite: SuiteEntry; difference: RowDifference }[] = [];
  const kyvernoErrors: string[] = [];
  let extraExcluded = 0;
  let finished = 0;
  await pool(manifest.length, Number(values.jobs), async (i) => {
    const entry = manifest[i] as SuiteEntry;
    const dir = join(corpus, entry.suiteDir, ".kyverno-test");
    const kyverno = await runKyverno(values.kyverno as string, dir);
    const suites = await runSuites(join(dir, "kyverno-test.yaml"), offlineEngine, entry.suiteDir);
    const tally = perCategory.get(entry.category) ?? { pairs: 0, outcome: 0, message: 0, unpaired: 0 };
    perCategory.set(entry.category, tally);
    finished++;
    if (process.stderr.isTTY) process.stderr.write(`\rside-by-side: ${finished}/${manifest.length} suites`);
    if (kyverno.error !== undefined) {
      kyvernoErrors.push(`${entry.suiteDir}: ${kyverno.error}`);
      return;
    }
    const result = compareRows(
      kyvernoRows(kyverno.stdout),
      suites.flatMap((s) => s.results),
    );
    tally.pairs += result.pairs;
    extraExcluded += result.extraExcluded;
    for (const difference of result.differences) {
      all.push({ suite: entry, difference });
      if (difference.what === "outcome") tally.outcome++;
      else if (difference.what === "message") tally.message++;
      else tally.unpaired++;
    }
  });
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  for (const [category, t] of [...perCategory].sort())
    console.log(
      `  ${category.padEnd(22)} ${String(t.pairs).padStart(5)} rows paired; ${t.outcome} outcomes and ${t.message} messages differ; ${t.unpaired} rows unpaired`,
    );
  const count = (what: RowDifference["what"]): number => all.filter((d) => d.difference.what === what).length;
  console.log(
    `side-by-side: ${manifest.length} suites in ${((performance.now() - started) / 1000).toFixed(0)} s; ${count("outcome")} outcomes differ, ${count("message")} messages differ, ${count("kyverno-only")} rows only Kyverno has, ${count("bylaw-only")} only Bylaw has; Kyverno could not run ${kyvernoErrors.length} suites; ${extraExcluded} extra Pass Excluded rows of Kyverno's beside a real one (compare-rows.ts)`,
  );
  for (const e of kyvernoErrors.slice(0, 10)) console.log(`  kyverno error: ${e}`);
  const order: RowDifference["what"][] = ["outcome", "kyverno-only", "bylaw-only", "message"];
  const sorted = [...all].sort((a, b) => order.indexOf(a.difference.what) - order.indexOf(b.difference.what));
  for (const { suite, difference: d } of sorted.slice(0, Number(values.show)))
    console.log(
      `  ${d.what} ${suite.suiteDir} ${d.key}\n    kyverno: ${d.kyverno ?? "-"}\n    bylaw:   ${d.bylaw ?? "-"}`,
    );
  if (values.out !== undefined) {
    const cell = (s: string | undefined): string => (s ?? "").replace(/[\t\n]/g, " ");
    writeFileSync(
      values.out,
      [
        "suite\twhat\trow\tkyverno\tbylaw",
        ...sorted.map(({ suite, difference: d }) =>
          [suite.suiteDir, d.what, d.key, cell(d.kyverno), cell(d.bylaw)].join("\t"),
        ),
      ].join("\n") + "\n",
    );
    console.log(`side-by-side: every difference in ${values.out}`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`side-by-side: ${(e as Error).stack ?? String(e)}`);
    process.exit(1);
  },
);

/**
 * Start-up figures of the `bylaw` binary, each next to its floor, as whole processes (spawned, then
 * waited for): `bylaw --help` and `bylaw test` on one small suite against `node -e 0`; `bylaw test`
 * over the whole corpus (worker threads as by default, and in one thread) against a process that
 * only reads and parses the corpus YAML (read-corpus-yaml.ts). Wall times, min and median of a few
 * runs after a warm-up; the load average is printed too, since on a shared machine the neighbours'
 * load lengthens every figure.
 */
import { spawnSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { findCorpusDir } from "./yaml-corpus.js";

interface Figure {
  readonly min: number;
  readonly median: number;
}

function time(command: readonly string[], runs: number, env: Record<string, string> = {}): Figure {
  const [file, ...args] = command;
  const ms: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t = performance.now();
    const r = spawnSync(file ?? "", args, { stdio: ["ignore", "ignore", "ignore"], env: { ...process.env, ...env } });
    if (r.error !== undefined) throw r.error;
    if (i > 0) ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { min: ms[0] ?? NaN, median: ms[Math.floor(ms.length / 2)] ?? NaN };
}

const fmt = (f: Figure): string => `min ${f.min.toFixed(0).padStart(5)} ms, median ${f.median.toFixed(0).padStart(5)} ms`;
const ratio = (a: Figure, b: Figure): string => `${(a.min / b.min).toFixed(2)}× / ${(a.median / b.median).toFixed(2)}× the floor (min / median)`;

export function benchStartup(repoRoot: string): void {
  const node = process.execPath;
  const bylaw = [node, join(repoRoot, "bin", "bylaw.js")];
  console.log(`startup: ${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  const floor = time([node, "-e", "0"], 9);
  console.log(`startup: node -e 0 (floor)                        ${fmt(floor)}`);
  const help = time([...bylaw, "--help"], 9);
  console.log(`startup: bylaw --help                             ${fmt(help)}; ${ratio(help, floor)}`);
  const suite = join(repoRoot, "examples", "mutate", "add-labels");
  const small = time([...bylaw, "test", suite], 9);
  console.log(`startup: bylaw test examples/mutate/add-labels    ${fmt(small)}; ${ratio(small, floor)}`);

  const corpus = findCorpusDir();
  if (corpus === undefined) {
    console.log("startup: corpus not found (BYLAW_CONFORMANCE_DIR or ../shared/conformance/kyverno-policies); corpus figures skipped");
    return;
  }
  const read = time([node, join(repoRoot, "dist", "bench", "read-corpus-yaml.js"), corpus], 3);
  console.log(`startup: read and parse the corpus YAML (floor)   ${fmt(read)}`);
  const all = time([...bylaw, "test", corpus, "-o", "json"], 3);
  console.log(`startup: bylaw test CORPUS -o json                ${fmt(all)}; ${ratio(all, read)}`);
  const one = time([...bylaw, "test", corpus, "-o", "json"], 3, { BYLAW_TEST_WORKERS: "0" });
  console.log(`startup: the same, BYLAW_TEST_WORKERS=0           ${fmt(one)}; ${ratio(one, read)}`);
}

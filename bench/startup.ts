/**
 * Start-up figures of the `bylaw` binary, each next to its floor, as whole processes (spawned, then
 * waited for): `bylaw --help` and `bylaw test` on one small suite against `node -e 0`; `bylaw test`
 * over the whole corpus (threads as by default, with its caches warm and with them off, and with one
 * suite worker) against a process that only reads and parses the corpus YAML (read-corpus-yaml.ts).
 * Wall times, min and median of a few runs after a warm-up (which also writes the compile cache,
 * src/cli/launch/cached-bundle.ts, and the parse cache, src/platform/files/parse-cache.ts, into a
 * folder of its own), and the children's mean CPU time (user + system, every thread; from
 * /proc/self/stat on Linux), since on a shared machine the neighbours' load lengthens every wall
 * figure but hardly the CPU time. The small suite is also timed with the compile cache off: what
 * a first run, or a run that cannot write its cache, costs. The load average is printed too.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { findCorpusDir } from "./yaml-corpus.js";

interface Figure {
  readonly min: number;
  readonly median: number;
  /** Mean CPU ms of a run (user + system of the child and its threads), NaN where unknown. */
  readonly cpu: number;
}

/** CPU ms the waited-for children of this process used so far (Linux, 100 clock ticks a second), NaN elsewhere. */
function childrenCpuMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 16 and 17 of proc(5) (cutime, cstime), counted from the state field (3): indexes 13 and 14.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

function time(command: readonly string[], runs: number, env: Record<string, string> = {}): Figure {
  const [file, ...args] = command;
  const ms: number[] = [];
  let cpuBefore = NaN;
  for (let i = 0; i <= runs; i++) {
    if (i === 1) cpuBefore = childrenCpuMs();
    const t = performance.now();
    const r = spawnSync(file ?? "", args, { stdio: ["ignore", "ignore", "ignore"], env: { ...process.env, ...env } });
    if (r.error !== undefined) throw r.error;
    if (i > 0) ms.push(performance.now() - t);
  }
  const cpu = (childrenCpuMs() - cpuBefore) / runs;
  ms.sort((a, b) => a - b);
  return { min: ms[0] ?? NaN, median: ms[Math.floor(ms.length / 2)] ?? NaN, cpu };
}

const fmt = (f: Figure): string =>
  `wall min ${f.min.toFixed(0).padStart(5)} ms, median ${f.median.toFixed(0).padStart(5)} ms; cpu ${f.cpu.toFixed(0).padStart(5)} ms`;
const ratio = (a: Figure, b: Figure): string =>
  `${(a.min / b.min).toFixed(2)}× / ${(a.median / b.median).toFixed(2)}× / ${(a.cpu / b.cpu).toFixed(2)}× the floor (wall min / wall median / cpu)`;

export function benchStartup(repoRoot: string): void {
  const node = process.execPath;
  const bylaw = [node, join(repoRoot, "bin", "bylaw.js")];
  const cache = mkdtempSync(join(tmpdir(), "bylaw-bench-cache-"));
  const cached = { BYLAW_COMPILE_CACHE: cache };
  try {
    console.log(
      `startup: ${availableParallelism()} cores, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}; cpu is the children's user + system time (clock ticks of 10 ms, averaged)`,
    );
    const floor = time([node, "-e", "0"], 19);
    console.log(`startup: node -e 0 (floor)                        ${fmt(floor)}`);
    const help = time([...bylaw, "--help"], 19, cached);
    console.log(`startup: bylaw --help                             ${fmt(help)}; ${ratio(help, floor)}`);
    const suite = join(repoRoot, "examples", "mutate", "add-labels");
    const small = time([...bylaw, "test", suite], 19, cached);
    console.log(`startup: bylaw test examples/mutate/add-labels    ${fmt(small)}; ${ratio(small, floor)}`);
    const cold = time([...bylaw, "test", suite], 9, { BYLAW_COMPILE_CACHE: "off" });
    console.log(`startup: the same, BYLAW_COMPILE_CACHE=off        ${fmt(cold)}; ${ratio(cold, floor)}`);

    const corpus = findCorpusDir();
    if (corpus === undefined) {
      console.log(
        "startup: corpus not found (BYLAW_CONFORMANCE_DIR or ../shared/conformance/kyverno-policies); corpus figures skipped",
      );
      return;
    }
    const read = time([node, join(repoRoot, "dist", "bench", "read-corpus-yaml.js"), corpus], 3);
    console.log(`startup: read and parse the corpus YAML (floor)   ${fmt(read)}`);
    const all = time([...bylaw, "test", corpus, "-o", "bylaw-json"], 5, cached);
    console.log(`startup: bylaw test CORPUS -o bylaw-json (caches warm)  ${fmt(all)}; ${ratio(all, read)}`);
    const first = time([...bylaw, "test", corpus, "-o", "bylaw-json"], 3, { BYLAW_COMPILE_CACHE: "off" });
    console.log(`startup: the same, BYLAW_COMPILE_CACHE=off        ${fmt(first)}; ${ratio(first, read)}`);
    const worker = time([...bylaw, "test", corpus, "-o", "bylaw-json"], 3, { ...cached, BYLAW_TEST_WORKERS: "1" });
    console.log(`startup: the same, warm, BYLAW_TEST_WORKERS=1     ${fmt(worker)}; ${ratio(worker, read)}`);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

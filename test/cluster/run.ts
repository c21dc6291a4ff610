/**
 * `npm run test:cluster`: every `*.cluster-test.js` under dist/test/cluster, each file starting its
 * own control plane. Most files spend their time waiting on the control plane (Leases expiring,
 * schedules, scans), so they run several at a time (`BYLAW_CLUSTER_TEST_CONCURRENCY`, default 3).
 * A file that bounds a response time (a control review answered within 2 s while a tenant attacks, a
 * Lease handed over within its duration, a line delivered within 10 s) says so with the marker
 * below in its header comment; those files run afterwards, one at a time, with nothing beside them,
 * so another file's control plane starting never decides their figures.
 *
 *   node dist/test/cluster/run.js [NAME...]   only the files whose name contains one of NAME
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** What a cluster test's header comment says to run it alone. */
const ALONE_MARKER = "Runs alone in `npm run test:cluster`";

const here = dirname(fileURLToPath(import.meta.url));

function concurrency(): number {
  const raw = process.env["BYLAW_CLUSTER_TEST_CONCURRENCY"] ?? "3";
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`BYLAW_CLUSTER_TEST_CONCURRENCY must be a whole number of at least 1, not ${JSON.stringify(raw)}`);
  }
  return n;
}

/** `node --test` over `files`, `n` at a time; resolves with its exit code. */
function nodeTest(files: readonly string[], n: number): Promise<number> {
  if (files.length === 0) return Promise.resolve(0);
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--test", `--test-concurrency=${n}`, "--test-reporter=spec", ...files], {
      stdio: "inherit",
    });
    child.on("error", fail);
    child.on("exit", (code, signal) => done(code ?? (signal !== null ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const names = process.argv.slice(2);
  const files = readdirSync(here)
    .filter((f) => f.endsWith(".cluster-test.js"))
    .filter((f) => names.length === 0 || names.some((n) => f.includes(n)))
    .sort()
    .map((f) => join(here, f));
  if (files.length === 0) {
    console.error(`test:cluster: no cluster test file in ${here} matches ${names.join(", ")}`);
    return 2;
  }
  const alone = files.filter((f) => readFileSync(f, "utf8").includes(ALONE_MARKER));
  const together = files.filter((f) => !alone.includes(f));
  const n = concurrency();
  console.log(`# test:cluster: ${together.length} files ${n} at a time, then ${alone.length} alone`);
  const first = await nodeTest(together, n);
  const second = await nodeTest(alone, 1);
  return first !== 0 ? first : second;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`test:cluster: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);

/**
 * The monitoring component's cost (issue 37's bench), printed, never pass/fail:
 * 1. Loki lines per second: new results of PolicyReports through the component's sender and Bylaw's
 *    Loki client into a real VictoriaLogs (scripts/monitoring/sinks.sh), protobuf and JSON, timed
 *    from the first result to the last line accepted; with the sender's and client's CPU.
 * 2. One report with 10,000 results: the lines it produces and the time to make them, the series
 *    `policy_report_result` holds for it (detailed and simple labels), and the heap the sender keeps
 *    for 10,000 reports of 10 results (the ids it remembers).
 * 3. At rest: `bylaw serve --component monitoring --loki` on the real control plane
 *    (scripts/cluster.sh up --with-bylaw) holding `BENCH_REPORTS` PolicyReports of 10 results
 *    (default 10,000, in 10 namespaces), nothing changing: its CPU
 *    (from /proc/<pid>/stat) and RSS over 30 s. Skipped with `--no-cluster`.
 *
 *   npm run bench:monitoring [-- --no-cluster]   (BENCH_REPORTS=N for another count at rest)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonObject } from "../src/engine/index.js";
import { collectFamilies } from "../src/controllers/monitoring/collect.js";
import { ResultSender } from "../src/controllers/monitoring/result-sender.js";
import { MONITORED_SOURCES } from "../src/controllers/monitoring/sources.js";
import { REPORT_LABELS, SIMPLE_REPORT_LABELS } from "../src/controllers/monitoring/types.js";
import { LokiClient, type LokiEncoding } from "../src/platform/loki/index.js";
import {
  kubectlOk,
  readPids,
  restartBylaw,
  startCluster,
  tearDown,
  type Cluster,
} from "../test/cluster/cluster-harness.js";
import { startSinks, waitForLogs, type Sinks } from "../test/support/monitoring-sinks.js";

const polrs = MONITORED_SOURCES[0];
if (polrs === undefined) throw new Error("no policyreports source");

function report(namespace: string, name: string, results: number, stamp = Math.floor(Date.now() / 1000)): JsonObject {
  return {
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport",
    metadata: { name, namespace },
    scope: { apiVersion: "v1", kind: "Pod", name, namespace, uid: `uid-${name}` },
    results: Array.from({ length: results }, (_, i) => ({
      policy: `policy-${i % 20}`,
      rule: `rule-${i % 5}`,
      result: i % 3 === 0 ? "pass" : "fail",
      severity: "medium",
      category: "Best Practices",
      source: "kyverno",
      message: `validation error: ${name} check ${i} failed at path /metadata/labels/team/`,
      timestamp: { seconds: stamp, nanos: 0 },
    })),
  };
}

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function linesPerSecond(sinks: Sinks, encoding: LokiEncoding, reports: number, perReport: number) {
  const run = `bench-${encoding}-${Date.now()}`;
  const loki = new LokiClient({ connection: { url: sinks.lokiPushUrl }, encoding, bufferEntries: reports * perReport });
  const sender = new ResultSender({ push: (l, e) => loki.push(l, e), extraLabels: { run }, now: Date.now });
  sender.listed(polrs!, []);
  const objects = Array.from({ length: reports }, (_, i) => report(`ns-${i % 50}`, `pod-${i}`, perReport));
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const o of objects) sender.changed(polrs!, o);
  const stats = await loki.close(120_000);
  const seconds = (performance.now() - started) / 1000;
  const used = cpuMs(process.cpuUsage(cpu));
  const total = reports * perReport;
  const arrived = await waitForLogs(sinks, `{run="${run}"} | count()`, { count: 1, timeoutMs: 30_000 });
  console.log(
    `  ${encoding.padEnd(8)} ${total} lines in ${seconds.toFixed(2)} s: ${Math.round(total / seconds)} lines/s; ` +
      `sent ${stats.sent}, dropped ${Object.values(stats.dropped).reduce((a, b) => a + b, 0)}; ` +
      `Bylaw's CPU ${used.toFixed(0)} ms (${((used / total) * 1000).toFixed(0)} µs a line); ` +
      `VictoriaLogs counts ${arrived[0]?.["count(*)"] ?? "?"}`,
  );
}

function oneBigReport(): void {
  const big = report("shop", "big", 10_000);
  const lines: number[] = [0];
  const sender = new ResultSender({ push: () => void lines[0]!++, extraLabels: {}, now: Date.now });
  sender.listed(polrs!, []);
  const started = performance.now();
  sender.changed(polrs!, big);
  const ms = performance.now() - started;
  const again = performance.now();
  sender.changed(polrs!, big);
  const resyncMs = performance.now() - again;
  console.log(
    `  one report, 10,000 results: ${lines[0]} Loki lines in ${ms.toFixed(0)} ms; the same report again (a resync) ${resyncMs.toFixed(0)} ms, ${lines[0]! - 10_000} lines`,
  );
  for (const [name, labels] of [
    ["detailed", REPORT_LABELS],
    ["simple", SIMPLE_REPORT_LABELS],
  ] as const) {
    const t = performance.now();
    const families = collectFamilies({
      sources: [{ source: polrs!, objects: [big] }],
      labels,
      maxSeries: 100_000,
    });
    const series = families.find((f) => f.name === "policy_report_result")?.samples.length ?? 0;
    console.log(
      `  policy_report_result with ${name} labels: ${series} series, built in ${(performance.now() - t).toFixed(0)} ms`,
    );
  }
}

function rememberedMemory(): void {
  gc();
  const before = process.memoryUsage().heapUsed;
  const sender = new ResultSender({ push: () => undefined, extraLabels: {}, now: Date.now });
  sender.listed(polrs!, []);
  for (let i = 0; i < 10_000; i++) sender.changed(polrs!, report(`ns-${i % 100}`, `pod-${i}`, 10));
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(
    `  10,000 reports × 10 results: ${sender.remembered} ids remembered, heap +${mib(after - before)} MiB` +
      ((globalThis as { gc?: unknown }).gc === undefined ? " (run with --expose-gc for a settled figure)" : ""),
  );
}

function procCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 a second).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;
}

/** How many PolicyReports the component holds at rest (BENCH_REPORTS, default 10,000). */
const REPORTS = Number(process.env["BENCH_REPORTS"] ?? 10_000);

async function atRest(sinks: Sinks): Promise<void> {
  const args = `--component admission --component monitoring --loki ${sinks.lokiPushUrl} --loki-events`;
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster(90 * 60_000, undefined, { withBylaw: true, bylawArgs: args });
    const c = cluster;
    const base = readFileSync(join(c.dir, "bylaw-base.yaml"), "utf8");
    await kubectlOk(c, ["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component=monitoring"], base);
    await kubectlOk(c, [
      "create",
      "clusterrolebinding",
      "bylaw-runs-monitoring",
      "--clusterrole=bylaw:monitoring",
      "--serviceaccount=bylaw:bylaw",
    ]);
    await restartBylaw(c, { extraArgs: args });
    const pid = readPids(c.dir).get("bylaw") ?? 0;
    const idle = { rss: rssMiB(pid) };
    for (let ns = 0; ns < 10; ns++) await kubectlOk(c, ["create", "namespace", `bench-${ns}`]);
    const created = performance.now();
    for (let first = 0; first < REPORTS; first += 100) {
      const items = Array.from({ length: Math.min(100, REPORTS - first) }, (_, i) =>
        report(`bench-${(first + i) % 10}`, `pod-${first + i}`, 10),
      );
      await kubectlOk(c, ["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items }));
    }
    console.log(`  ${REPORTS} PolicyReports created in ${((performance.now() - created) / 1000).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, 10_000));
    const cpu0 = procCpuMs(pid);
    const rss0 = rssMiB(pid);
    await new Promise((r) => setTimeout(r, 30_000));
    const cpu = procCpuMs(pid) - cpu0;
    console.log(
      `  at rest (admission + monitoring, ${REPORTS} PolicyReports × 10 results, Events on): CPU ${cpu} ms over 30 s ` +
        `(${((cpu / 30_000) * 100).toFixed(2)} % of a core); RSS ${idle.rss.toFixed(0)} MiB empty, ` +
        `${rss0.toFixed(0)} MiB with the reports, ${rssMiB(pid).toFixed(0)} MiB 30 s later`,
    );
  } finally {
    await tearDown(cluster);
  }
}

async function main(): Promise<void> {
  console.log(`bench monitoring-loki: node ${process.version}, ${new Date().toISOString()}`);
  console.log("one report with 10,000 results, and the ids remembered:");
  oneBigReport();
  rememberedMemory();
  const sinks = await startSinks();
  try {
    console.log("Loki lines per second (sender + client → VictoriaLogs on loopback, 100 reports × 500 results):");
    for (const encoding of ["protobuf", "json"] as const) await linesPerSecond(sinks, encoding, 100, 500);
    if (!process.argv.includes("--no-cluster")) {
      console.log("the component at rest:");
      await atRest(sinks);
    }
  } finally {
    await sinks.down();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

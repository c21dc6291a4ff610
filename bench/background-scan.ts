/**
 * Background scan bench (issue 35 §4; printed figures, not a timed test): a real control plane
 * (`scripts/cluster.sh up DIR --with-bylaw`, Bylaw with `--reports-controller`), N Pods (default
 * 10,000, `BENCH_PODS`) created before any policy, then the pss-restricted policy set
 * (deploy/components/policy-set-pss-restricted/policies, Audit) applied. Measured for the Bylaw
 * process (which runs the reports controller): CPU (utime+stime from /proc) and wall time until every
 * Pod has its report, peak RSS (VmHWM) and, from each scan pass's log line, the caches' JSON bytes
 * and the heap (where the memory goes), the API writes to reports (the API server's
 * apiserver_request_total for wgpolicyk8s.io), and etcd's database file before and after; then the
 * same over one rescan where nothing changed (goal: no write).
 *
 * The Pods name a scheduler that does not exist, so they stay Pending and unchanged: a rescan sees
 * exactly what the first scan saw. The reports controller may list the pod controllers too (the
 * policies' autogen kinds; there are none), so it does not retry forbidden lists meanwhile. Bylaw's
 * CPU is also printed per thread (main, evaluation worker, V8's GC helpers, libuv). `BENCH_SCAN_WORKERS`
 * sets `--background-scan-workers`; `BENCH_BYLAW_ARGS` adds flags (`--omit-events PolicyViolation` shows
 * what the Events cost). Run: `npm run build && node dist/bench/background-scan.js`.
 */
import { copyFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { eventually, kubectlOk, startCluster, stopCluster, type Cluster } from "../test/cluster/cluster-harness.js";
import { apiClient, type ApiClient } from "./cluster/api-client.js";
import { pool } from "../test/support/pool.js";
import { bylawPid, createNamespace, loadNote } from "./cluster/cluster-steps.js";
import { cpuSeconds, threadCpu, threadCpuDelta } from "./cluster/process-cpu.js";

const PODS = Number(process.env["BENCH_PODS"] ?? 10_000);
const INTERVAL_S = Number(process.env["BENCH_SCAN_INTERVAL_S"] ?? 120);
/** `--background-scan-workers` (reports written at once); Bylaw's default when unset. */
const WORKERS = process.env["BENCH_SCAN_WORKERS"];
const NAMESPACES = Math.max(1, Math.ceil(PODS / 1000));
const POLICIES = join("deploy", "components", "policy-set-pss-restricted", "policies");
const GRANT = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: bench-reports-pods
  labels:
    rbac.kyverno.io/aggregate-to-reports-controller: "true"
rules:
  - apiGroups: [""]
    resources: [pods, replicationcontrollers]
    verbs: [get, list, watch]
  - apiGroups: [apps]
    resources: [daemonsets, deployments, replicasets, statefulsets]
    verbs: [get, list, watch]
  - apiGroups: [batch]
    resources: [jobs, cronjobs]
    verbs: [get, list, watch]
`;

function hwmMiB(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? NaN) / 1024;
}

function etcdDbMiB(cluster: Cluster): number {
  return statSync(join(cluster.dir, "etcd", "member", "snap", "db")).size / 1024 / 1024;
}

/** Writes (not GET, LIST or WATCH) the API server has answered in an API group: wgpolicyk8s.io (reports), events.k8s.io. */
async function writesIn(api: ApiClient, group: string): Promise<number> {
  const text = (await api.call("GET", "/metrics")).body;
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith("apiserver_request_total{") || !line.includes(`group="${group}"`)) continue;
    const verb = /verb="([A-Z]+)"/.exec(line)?.[1] ?? "";
    if (["GET", "LIST", "WATCH"].includes(verb)) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

function reportWrites(api: ApiClient): Promise<number> {
  return writesIn(api, "wgpolicyk8s.io");
}

/** The reports controller's "scan pass done" log lines: resources scanned and skipped, caches' JSON bytes, heap and RSS. */
function passLines(cluster: Cluster): string[] {
  const text = readFileSync(join(cluster.dir, "logs", "bylaw.log"), "utf8");
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes("scan pass done")) continue;
    try {
      const f = JSON.parse(line) as Record<string, unknown>;
      out.push(
        `scanned ${String(f["scanned"])}, skipped ${String(f["skipped"])}, evaluation ${String(f["evaluationSeconds"])} s (main thread); caches (JSON): resources ${String(f["resourceCacheMiB"])} MiB, reports ${String(f["reportCacheMiB"])} MiB; heap used ${String(f["heapUsedMiB"])} MiB, RSS ${String(f["rssMiB"])} MiB`,
      );
    } catch {
      out.push(line);
    }
  }
  return out;
}

async function reportCount(api: ApiClient): Promise<number> {
  let total = 0;
  for (let n = 0; n < NAMESPACES; n++) {
    const r = await api.call("GET", `/apis/wgpolicyk8s.io/v1alpha2/namespaces/bench-${n}/policyreports?limit=1`);
    const meta = (JSON.parse(r.body) as { metadata?: { remainingItemCount?: number } }).metadata;
    const items = (JSON.parse(r.body) as { items?: unknown[] }).items?.length ?? 0;
    total += items + (meta?.remainingItemCount ?? 0);
  }
  return total;
}

function pod(n: number): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `p-${n}`, namespace: `bench-${n % NAMESPACES}`, labels: { app: "bench" } },
    spec: {
      schedulerName: "bench-none",
      containers: [{ name: "app", image: "nginx:1.27", securityContext: { privileged: n % 10 === 0 } }],
    },
  };
}

interface Figures {
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  /** Bylaw's CPU seconds per thread name over the same window. */
  readonly threads: string;
  readonly writes: number;
  /** Events Bylaw wrote (events.k8s.io; Kyverno's PolicyViolation Events of the scan's failures, bounded by --max-queued-events). */
  readonly eventWrites: number;
  readonly etcdMiB: number;
}

async function measure(cluster: Cluster, api: ApiClient, until: () => Promise<boolean>): Promise<Figures> {
  const pid = bylawPid(cluster);
  const [cpu0, threads0, writes0, events0, t0] = [
    cpuSeconds(pid),
    threadCpu(pid),
    await reportWrites(api),
    await writesIn(api, "events.k8s.io"),
    Date.now(),
  ];
  await eventually("the scan to finish", 60 * 60_000, async () => ((await until()) ? true : undefined));
  return {
    wallSeconds: (Date.now() - t0) / 1000,
    cpuSeconds: cpuSeconds(pid) - cpu0,
    threads: threadCpuDelta(threads0, threadCpu(pid)),
    writes: (await reportWrites(api)) - writes0,
    eventWrites: (await writesIn(api, "events.k8s.io")) - events0,
    etcdMiB: etcdDbMiB(cluster),
  };
}

async function main(): Promise<void> {
  process.env["BYLAW_CLUSTER_BYLAW_ARGS"] =
    `--reports-controller --background-scan-interval ${INTERVAL_S}s` +
    (WORKERS !== undefined ? ` --background-scan-workers ${WORKERS}` : "") +
    (process.env["BENCH_BYLAW_ARGS"] !== undefined ? ` ${process.env["BENCH_BYLAW_ARGS"]}` : "");
  const cluster = await startCluster(90 * 60_000, undefined, { withBylaw: true });
  const api = apiClient(cluster.dir, 32);
  try {
    await kubectlOk(cluster, ["apply", "-f", "-"], GRANT);
    for (let n = 0; n < NAMESPACES; n++) await createNamespace(api, `bench-${n}`);
    const t = Date.now();
    await pool(PODS, 32, async (i) => {
      const p = pod(i);
      const ns = (p["metadata"] as { namespace: string }).namespace;
      const r = await api.call("POST", `/api/v1/namespaces/${ns}/pods`, p);
      if (r.status !== 201) throw new Error(`create pod ${i}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    });
    console.log(`${PODS} Pods in ${NAMESPACES} namespaces created in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, 5000));
    const etcdBefore = etcdDbMiB(cluster);
    const files = readdirSync(POLICIES).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
    // Every policy applied, every Pod reported, and no report written for 15 s: the first scan is
    // over (its wall time includes that quiet wait).
    let applied = false;
    let last = -1;
    const first = await measure(cluster, api, async () => {
      if (!applied) await kubectlOk(cluster, ["apply", ...files.flatMap((f) => ["-f", join(POLICIES, f)])]);
      applied = true;
      await new Promise((r) => setTimeout(r, 15_000));
      const writes = await reportWrites(api);
      const settled = writes === last && (await reportCount(api)) >= PODS;
      last = writes;
      return settled;
    });
    // A rescan where nothing changed: one full interval more, plus a margin for the scan itself.
    const rescan = await measure(cluster, api, async () => {
      await new Promise((r) => setTimeout(r, (INTERVAL_S + 30) * 1000));
      return true;
    });
    const pid = bylawPid(cluster);
    console.log(
      `background scan, ${PODS} Pods x ${files.length} pss-restricted policies (Audit), --background-scan-workers ${WORKERS ?? "default"}${process.env["BENCH_BYLAW_ARGS"] !== undefined ? `, ${process.env["BENCH_BYLAW_ARGS"]}` : ""}; ${loadNote()}`,
    );
    console.log(`| | wall s | Bylaw CPU s | report writes | Event writes | etcd db MiB |`);
    console.log(`|---|---|---|---|---|---|`);
    console.log(`| before | | | | | ${etcdBefore.toFixed(1)} |`);
    for (const [label, f] of [
      ["first scan", first],
      [`rescan (${INTERVAL_S} s interval, nothing changed)`, rescan],
    ] as const)
      console.log(
        `| ${label} | ${f.wallSeconds.toFixed(1)} | ${f.cpuSeconds.toFixed(1)} | ${f.writes} | ${f.eventWrites} | ${f.etcdMiB.toFixed(1)} |`,
      );
    console.log(`Bylaw CPU by thread, first scan: ${first.threads}`);
    console.log(`Bylaw CPU by thread, rescan: ${rescan.threads}`);
    console.log(`Bylaw peak RSS (VmHWM): ${hwmMiB(pid).toFixed(0)} MiB`);
    console.log("scan passes (the reports controller's log):");
    for (const line of passLines(cluster)) console.log(`  ${line}`);
  } finally {
    api.close();
    // BENCH_KEEP_LOG=FILE keeps Bylaw's log (the cluster's folder goes with the cluster).
    const keep = process.env["BENCH_KEEP_LOG"];
    if (keep !== undefined) copyFileSync(join(cluster.dir, "logs", "bylaw.log"), keep);
    await stopCluster(cluster.dir);
  }
}

await main();

/**
 * Part 1: the admission latency Bylaw adds to `create Pod`, as the API server measures it
 * (apiserver_admission_webhook_admission_duration_seconds, the difference of two /metrics scrapes,
 * p50/p99 interpolated inside buckets) and as a raw HTTPS client sees each create (exact
 * percentiles, and the median of allowed and of denied creates apart). The same load (the same
 * Pod, restrictedPod) runs with (a) no policy (no Pod webhook registered), (b) the 18 PSS policies in
 * Enforce, (c) the corpus's ClusterPolicies (about 350) and (d) those plus its ValidatingPolicies,
 * each corpus policy with its own actions, leaving out those that need the outside network
 * (corpus-policies.ts, counts and reasons printed). Created and denied creates are counted, and
 * each denial is attributed to the webhook and policies that refused it (denials.ts). Bylaw's own
 * policy time per create, and the policies that take most of it, come from its metrics (policy-time.ts).
 */
import { join } from "node:path";
import { kubectlOk, type Cluster } from "../../test/cluster/cluster-harness.js";
import type { ApiClient } from "./api-client.js";
import { pool } from "../../test/support/pool.js";
import {
  applyPolicies,
  createNamespace,
  createObject,
  loadNote,
  VALIDATING_POLICIES,
  waitForPodWebhook,
  type AppliedPolicies,
} from "./cluster-steps.js";
import { describeCorpusSet, writeCorpusPolicies, type CorpusFamily } from "./corpus-policies.js";
import { tallyDenials } from "./denials.js";
import {
  difference,
  histogramBuckets,
  percentile,
  quantile,
  totalCount,
  type Buckets,
  type Quantile,
} from "./histogram.js";
import { restrictedPod, writePssEnforce } from "./policies.js";
import { cpuSeconds } from "./process-cpu.js";
import { droppedSeries, policyTime, policyTimeLine } from "./policy-time.js";

const METRIC = "apiserver_admission_webhook_admission_duration_seconds";

export interface LatencyRow {
  readonly label: string;
  readonly created: number;
  readonly denied: number;
  readonly other: number;
  readonly clientP50: number;
  readonly clientP99: number;
  /** Median client time of the allowed creates and of the refused ones (NaN when none). */
  readonly allowedP50: number;
  readonly deniedP50: number;
  readonly validating: WebhookFigures;
  readonly mutating: WebhookFigures;
  /** Bylaw's CPU time (all threads, /proc) over the part, per create; NaN when its process is not known. */
  readonly cpuPerCreateMs: number;
  readonly load: string;
}

export interface WebhookFigures {
  readonly calls: number;
  readonly p50: Quantile | undefined;
  readonly p99: Quantile | undefined;
}

export interface LatencyOptions {
  readonly creates: number;
  readonly concurrency: number;
  readonly nodes: readonly string[];
  /** The first creates of each phase, reported apart from the rest (0: one row per phase). */
  readonly warmup: number;
  /** Bylaw's process id, for its CPU time. */
  readonly bylawPid?: () => number;
  /** Bylaw's /metrics text, for its policy time by policy. */
  readonly bylawMetrics?: () => Promise<string>;
}

type Scrape = { validating: Buckets; mutating: Buckets; text: string };

// Pod CREATEs through Bylaw's resource webhooks, not its policy webhook (only Pods are created).
const bylawCreate = (l: string): boolean =>
  /name="[^"]*bylaw[^"]*"/.test(l) && !/name="[^"]*policy[^"]*"/.test(l) && l.includes('operation="CREATE"');
const ofType =
  (type: string) =>
  (l: string): boolean =>
    bylawCreate(l) && l.includes(`type="${type}"`);

async function webhookBuckets(cluster: Cluster): Promise<Scrape> {
  const text = await kubectlOk(cluster, ["get", "--raw", "/metrics"]);
  return {
    validating: histogramBuckets(text, METRIC, ofType("validating")),
    mutating: histogramBuckets(text, METRIC, ofType("admit")),
    text,
  };
}

/**
 * The same figures per Bylaw webhook (a create may pass through several: Fail and Ignore groups,
 * timeout groups) and per answer (rejected="true" or "false"), for the lines under the table.
 */
function perWebhook(after: Scrape, before: Scrape): string[] {
  const series = new Set<string>();
  for (const m of after.text.matchAll(new RegExp(`^${METRIC}_bucket\\{([^}]*)\\}`, "gm"))) {
    const labels = m[1] ?? "";
    if (!bylawCreate(labels)) continue;
    const name = /name="([^"]+)"/.exec(labels)?.[1];
    const rejected = /rejected="([^"]+)"/.exec(labels)?.[1];
    const type = /type="([^"]+)"/.exec(labels)?.[1];
    if (name !== undefined && rejected !== undefined && type !== undefined) series.add(`${type}\t${name}\t${rejected}`);
  }
  const out: string[] = [];
  for (const key of [...series].sort()) {
    const [type, name, rejected] = key.split("\t");
    const keep = (l: string): boolean =>
      l.includes(`name="${name ?? ""}"`) &&
      l.includes(`type="${type ?? ""}"`) &&
      l.includes(`rejected="${rejected ?? ""}"`) &&
      l.includes('operation="CREATE"');
    const f = figures(histogramBuckets(after.text, METRIC, keep), histogramBuckets(before.text, METRIC, keep));
    if (f.calls > 0)
      out.push(
        `${name ?? ""} (${type === "admit" ? "mutating" : "validating"}, ${rejected === "true" ? "rejected" : "allowed"}): ${f.calls} calls, p50 ${q(f.p50)}, p99 ${q(f.p99)}`,
      );
  }
  return out;
}

function figures(after: Buckets, before: Buckets): WebhookFigures {
  const d = difference(after, before);
  return { calls: totalCount(d), p50: quantile(d, 0.5), p99: quantile(d, 0.99) };
}

/**
 * The phase's creates in a namespace of their own: with `o.warmup`, the first creates after the
 * policies are Ready (Bylaw's code not yet optimised for them) and the rest are rows apart.
 */
async function createLoad(
  cluster: Cluster,
  api: ApiClient,
  label: string,
  namespace: string,
  o: LatencyOptions,
): Promise<LatencyRow[]> {
  await createNamespace(api, namespace);
  const warmup = Math.min(o.warmup, o.creates - 1);
  if (warmup <= 0) return [await createPart(cluster, api, { label, namespace, from: 0, count: o.creates }, o)];
  return [
    await createPart(cluster, api, { label: `${label}, creates 1–${warmup}`, namespace, from: 0, count: warmup }, o),
    await createPart(
      cluster,
      api,
      { label: `${label}, creates ${warmup + 1}–${o.creates}`, namespace, from: warmup, count: o.creates - warmup },
      o,
    ),
  ];
}

interface Part {
  readonly label: string;
  readonly namespace: string;
  /** The first create's number, and how many. */
  readonly from: number;
  readonly count: number;
}

async function createPart(cluster: Cluster, api: ApiClient, part: Part, o: LatencyOptions): Promise<LatencyRow> {
  const { label, namespace } = part;
  const before = await webhookBuckets(cluster);
  const load = loadNote();
  const pid = o.bylawPid?.();
  const metrics0 = await o.bylawMetrics?.();
  const cpu0 = pid !== undefined ? cpuSeconds(pid) : NaN;
  const results = await pool(part.count, o.concurrency, (k) => {
    const i = part.from + k;
    return api.call(
      "POST",
      `/api/v1/namespaces/${namespace}/pods`,
      restrictedPod(`p-${i}`, o.nodes[i % o.nodes.length] ?? "kwok-node-0"),
    );
  });
  const cpu = pid !== undefined ? cpuSeconds(pid) - cpu0 : NaN;
  const metrics1 = await o.bylawMetrics?.();
  const after = await webhookBuckets(cluster);
  const ms = results.map((r) => r.ms);
  const created = results.filter((r) => r.status === 201).length;
  const denied = results.filter((r) => r.status === 400 || r.status === 403 || r.status === 422).length;
  const firstOther = results.find((r) => r.status !== 201 && r.status !== 400 && r.status !== 403 && r.status !== 422);
  if (firstOther !== undefined)
    console.log(`  ${label}: an unexpected answer: HTTP ${firstOther.status} ${firstOther.body.slice(0, 300)}`);
  const firstDenied = results.find((r) => r.status !== 201);
  if (firstDenied !== undefined) console.log(`  ${label}: first refusal: ${firstDenied.body.slice(0, 600)}`);
  for (const [who, n] of tallyDenials(results).slice(0, 10)) console.log(`  ${label}: refused ${n}× by ${who}`);
  for (const line of perWebhook(after, before)) console.log(`  ${label}: ${line}`);
  if (metrics0 !== undefined && metrics1 !== undefined)
    console.log(
      `  ${label}: ${policyTimeLine(policyTime(metrics0, metrics1, "create"), part.count, 8, droppedSeries(metrics0, metrics1))}`,
    );
  return {
    label,
    created,
    denied,
    other: part.count - created - denied,
    cpuPerCreateMs: (cpu * 1000) / part.count,
    clientP50: percentile(ms, 50),
    clientP99: percentile(ms, 99),
    allowedP50: percentile(
      results.filter((r) => r.status === 201).map((r) => r.ms),
      50,
    ),
    deniedP50: percentile(
      results.filter((r) => r.status !== 201).map((r) => r.ms),
      50,
    ),
    validating: figures(after.validating, before.validating),
    mutating: figures(after.mutating, before.mutating),
    load,
  };
}

function printApplied(what: string, state: AppliedPolicies): void {
  console.log(
    `  ${what}: ${state.inCluster} in the cluster, ${state.ready} Ready, ${state.notReady} not Ready${state.noStatus > 0 ? `, ${state.noStatus} with no status after 5 min` : ""}; kubectl apply refused ${state.refusals.length}`,
  );
  if (state.notReadyNames.length > 0) console.log(`    not Ready (not served): ${state.notReadyNames.join(", ")}`);
  for (const line of state.refusals.slice(0, 20)) console.log(`    refused: ${line.slice(0, 300)}`);
}

/** Writes one corpus family and applies it; returns how many policies are Ready. */
async function loadCorpus(cluster: Cluster, api: ApiClient, corpus: string, family: CorpusFamily): Promise<number> {
  const dir = join(cluster.dir, `bench-${family}`);
  const set = writeCorpusPolicies(corpus, dir, family);
  for (const line of describeCorpusSet(family, set)) console.log(line);
  for (const name of set.runtimeClasses)
    await createObject(api, "/apis/node.k8s.io/v1/runtimeclasses", {
      apiVersion: "node.k8s.io/v1",
      kind: "RuntimeClass",
      metadata: { name },
      handler: "runc",
    });
  const state = await applyPolicies(cluster, dir, family === "validating-policies" ? VALIDATING_POLICIES : undefined);
  printApplied(family, state);
  return state.ready;
}

export async function benchAdmissionLatency(
  cluster: Cluster,
  api: ApiClient,
  corpus: string,
  o: LatencyOptions,
): Promise<LatencyRow[]> {
  const rows: LatencyRow[] = [];
  rows.push(...(await createLoad(cluster, api, "(a) no policy, no Pod webhook", "lat-none", o)));

  const pss = join(cluster.dir, "bench-pss");
  const nPss = writePssEnforce(corpus, pss);
  const pssState = await applyPolicies(cluster, pss);
  printApplied("PSS", pssState);
  await waitForPodWebhook(cluster);
  rows.push(
    ...(await createLoad(cluster, api, `(b) ${pssState.ready} PSS policies Ready (Enforce) of ${nPss}`, "lat-pss", o)),
  );

  // A corpus mutate policy (other/dns-policy-and-dns-config) reads kube-system/kubeadm-config, which a
  // kubeadm cluster has and this one does not; without it every create is an error of that rule under
  // Fail, and the validating webhook is never reached.
  await kubectlOk(cluster, [
    "create",
    "configmap",
    "kubeadm-config",
    "-n",
    "kube-system",
    "--from-literal=ClusterConfiguration=clusterName: bench.local",
  ]);
  const nCpol = await loadCorpus(cluster, api, corpus, "cluster-policies");
  await new Promise((r) => setTimeout(r, 5000)); // registration follows the loaded set
  rows.push(
    ...(await createLoad(
      cluster,
      api,
      `(c) ${nCpol} corpus ClusterPolicies Ready (their own actions)`,
      "lat-corpus",
      o,
    )),
  );

  const nVpol = await loadCorpus(cluster, api, corpus, "validating-policies");
  await new Promise((r) => setTimeout(r, 5000));
  rows.push(
    ...(await createLoad(
      cluster,
      api,
      `(d) the ${nCpol} of (c) + ${nVpol} corpus ValidatingPolicies Ready = ${nCpol + nVpol}`,
      "lat-corpus-vpol",
      o,
    )),
  );
  return rows;
}

const q = (x: Quantile | undefined): string =>
  x === undefined ? "-" : `${(x.value * 1000).toFixed(1)} ms (bucket ${x.lower * 1000}–${x.upper * 1000} ms)`;

export function printLatency(rows: readonly LatencyRow[], o: LatencyOptions): void {
  console.log(
    `\n## 1. create Pod latency: ${o.creates} creates, concurrency ${o.concurrency}, raw HTTPS (cluster-admin cert), Pods bound to ${o.nodes.length} kwok nodes`,
  );
  console.log(
    `   reproduce: BENCH_PARTS=latency BENCH_CREATES=${o.creates} BENCH_CONCURRENCY=${o.concurrency} BENCH_WARMUP=${o.warmup} npm run bench:cluster`,
  );
  if (o.warmup > 0)
    console.log(
      `   each phase's first ${o.warmup} creates after its policies are Ready are a row apart from the rest (BENCH_WARMUP=0: one row)`,
    );
  console.log(
    "   webhook figures: the API server's histogram, difference of two scrapes, linear inside the bucket named (its bounds limit precision)",
  );
  console.log(
    "   the same Pod in every case (policies.ts restrictedPod); client p50 is also given for allowed / denied creates apart",
  );
  console.log(
    "| load | created | denied | other | client p50 | client p99 | client p50 allowed / denied | validating calls | validating p50 | validating p99 | mutating calls | mutating p50 | mutating p99 | Bylaw CPU per create | machine |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  const ms = (x: number): string => (Number.isNaN(x) ? "-" : `${x.toFixed(1)} ms`);
  const w = (f: WebhookFigures): string => `${f.calls} | ${q(f.p50)} | ${q(f.p99)}`;
  for (const r of rows)
    console.log(
      `| ${r.label} | ${r.created} | ${r.denied} | ${r.other} | ${r.clientP50.toFixed(1)} ms | ${r.clientP99.toFixed(1)} ms | ${ms(r.allowedP50)} / ${ms(r.deniedP50)} | ${w(r.validating)} | ${w(r.mutating)} | ${ms(r.cpuPerCreateMs)} | ${r.load} |`,
    );
}

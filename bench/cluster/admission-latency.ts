/**
 * Part 1: the admission latency Bylaw adds to `create Pod`, as the API server measures it
 * (apiserver_admission_webhook_admission_duration_seconds, the difference of two /metrics scrapes,
 * p50/p99 interpolated inside buckets) and as a raw HTTPS client sees each create (exact
 * percentiles). The same load runs with no policy (no Pod webhook registered), the 18 PSS policies
 * in Enforce, and every corpus ClusterPolicy that loads. Created and denied creates are counted.
 */
import { join } from "node:path";
import { kubectlOk, type Cluster } from "../../test/cluster/cluster-harness.js";
import { pool, type ApiClient } from "./api-client.js";
import { applyPolicies, createNamespace, loadNote, waitForPodWebhook } from "./cluster-steps.js";
import { difference, histogramBuckets, percentile, quantile, totalCount, type Buckets, type Quantile } from "./histogram.js";
import { restrictedPod, writeCorpusClusterPolicies, writePssEnforce } from "./policies.js";

const METRIC = "apiserver_admission_webhook_admission_duration_seconds";

export interface LatencyRow {
  readonly label: string;
  readonly created: number;
  readonly denied: number;
  readonly other: number;
  readonly clientP50: number;
  readonly clientP99: number;
  readonly validating: WebhookFigures;
  readonly mutating: WebhookFigures;
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
}

type Scrape = { validating: Buckets; mutating: Buckets };

async function webhookBuckets(cluster: Cluster): Promise<Scrape> {
  const text = await kubectlOk(cluster, ["get", "--raw", "/metrics"]);
  // Pod CREATEs through Bylaw's resource webhooks, not its policy webhook (only Pods are created).
  const pick = (type: string) => (l: string): boolean => /name="[^"]*bylaw[^"]*"/.test(l) && !/name="[^"]*policy[^"]*"/.test(l) && l.includes('operation="CREATE"') && l.includes(`type="${type}"`);
  return { validating: histogramBuckets(text, METRIC, pick("validating")), mutating: histogramBuckets(text, METRIC, pick("admit")) };
}

function figures(after: Buckets, before: Buckets): WebhookFigures {
  const d = difference(after, before);
  return { calls: totalCount(d), p50: quantile(d, 0.5), p99: quantile(d, 0.99) };
}

async function createLoad(cluster: Cluster, api: ApiClient, label: string, namespace: string, o: LatencyOptions): Promise<LatencyRow> {
  await createNamespace(api, namespace);
  const before = await webhookBuckets(cluster);
  const load = loadNote();
  const results = await pool(o.creates, o.concurrency, (i) => api.call("POST", `/api/v1/namespaces/${namespace}/pods`, restrictedPod(`p-${i}`, o.nodes[i % o.nodes.length] ?? "kwok-node-0")));
  const after = await webhookBuckets(cluster);
  const ms = results.map((r) => r.ms);
  const created = results.filter((r) => r.status === 201).length;
  const denied = results.filter((r) => r.status === 400 || r.status === 403 || r.status === 422).length;
  const firstOther = results.find((r) => r.status !== 201 && r.status !== 400 && r.status !== 403 && r.status !== 422);
  if (firstOther !== undefined) console.log(`  ${label}: an unexpected answer: HTTP ${firstOther.status} ${firstOther.body.slice(0, 300)}`);
  const firstDenied = results.find((r) => r.status !== 201);
  if (firstDenied !== undefined && firstOther === undefined) console.log(`  ${label}: first denial: ${(JSON.parse(firstDenied.body) as { message?: string }).message?.slice(0, 300) ?? ""}`);
  return {
    label, created, denied, other: o.creates - created - denied,
    clientP50: percentile(ms, 50), clientP99: percentile(ms, 99),
    validating: figures(after.validating, before.validating), mutating: figures(after.mutating, before.mutating), load,
  };
}

export async function benchAdmissionLatency(cluster: Cluster, api: ApiClient, corpus: string, o: LatencyOptions): Promise<LatencyRow[]> {
  const rows: LatencyRow[] = [];
  rows.push(await createLoad(cluster, api, "(a) no policy, no Pod webhook", "lat-none", o));

  const pss = join(cluster.dir, "bench-pss");
  const nPss = writePssEnforce(corpus, pss);
  const pssState = await applyPolicies(cluster, pss, nPss);
  await waitForPodWebhook(cluster);
  rows.push(await createLoad(cluster, api, `(b) ${pssState.ready} PSS policies Ready (Enforce) of ${nPss}`, "lat-pss", o));

  // A corpus mutate policy (other/dns-policy-and-dns-config) reads kube-system/kubeadm-config, which a
  // kubeadm cluster has and this one does not; without it every create is an error of that rule under
  // Fail, and the validating webhook is never reached.
  await kubectlOk(cluster, ["create", "configmap", "kubeadm-config", "-n", "kube-system", "--from-literal=ClusterConfiguration=clusterName: bench.local"]);
  const all = join(cluster.dir, "bench-corpus");
  const nAll = writeCorpusClusterPolicies(corpus, all);
  const allState = await applyPolicies(cluster, all, nAll - 30);
  console.log(`  corpus: ${nAll} kyverno.io/v1 ClusterPolicies; ${allState.ready} Ready, ${allState.notReady} not Ready, ${nAll - allState.ready - allState.notReady} not created (${allState.applyErrors} kubectl stderr lines)`);
  await new Promise((r) => setTimeout(r, 5000)); // registration follows the loaded set
  rows.push(await createLoad(cluster, api, `(c) ${allState.ready} corpus ClusterPolicies Ready (their own actions)`, "lat-corpus", o));
  return rows;
}

const q = (x: Quantile | undefined): string => (x === undefined ? "-" : `${(x.value * 1000).toFixed(1)} ms (bucket ${x.lower * 1000}–${x.upper * 1000} ms)`);

export function printLatency(rows: readonly LatencyRow[], o: LatencyOptions): void {
  console.log(`\n## 1. create Pod latency: ${o.creates} creates, concurrency ${o.concurrency}, raw HTTPS (cluster-admin cert), Pods bound to ${o.nodes.length} kwok nodes`);
  console.log(`   reproduce: BENCH_PARTS=latency BENCH_CREATES=${o.creates} BENCH_CONCURRENCY=${o.concurrency} npm run bench:cluster`);
  console.log("   webhook figures: the API server's histogram, difference of two scrapes, linear inside the bucket named (its bounds limit precision)");
  console.log("| load | created | denied | other | client p50 | client p99 | validating calls | validating p50 | validating p99 | mutating calls | mutating p50 | mutating p99 | machine |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  const w = (f: WebhookFigures): string => `${f.calls} | ${q(f.p50)} | ${q(f.p99)}`;
  for (const r of rows) console.log(`| ${r.label} | ${r.created} | ${r.denied} | ${r.other} | ${r.clientP50.toFixed(1)} ms | ${r.clientP99.toFixed(1)} ms | ${w(r.validating)} | ${w(r.mutating)} | ${r.load} |`);
}

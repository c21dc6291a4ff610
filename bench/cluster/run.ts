/**
 * `npm run bench:cluster`: Bylaw against a real control plane (`scripts/cluster.sh up DIR
 * --with-bylaw`): admission latency with no policy, the 18 PSS policies, the corpus's ClusterPolicies
 * and those plus its ValidatingPolicies (part 1), the apiCall entry's cost per review (part 3, which loads the Pod-watching policy),
 * then informer memory with many Pods and namespaces (part 2). Prints figures, never verdicts; the
 * cluster is always brought down, on failure too. Sizes: BENCH_CREATES (500), BENCH_CONCURRENCY
 * (8), BENCH_WARMUP (50: each latency phase's first creates are a row apart), BENCH_REVIEWS (400),
 * BENCH_NAMESPACES (1000), BENCH_PODS (10000); BENCH_PARTS picks parts;
 * BENCH_KEEP=1 keeps the cluster's folder (its logs: Bylaw's admission review lines with their durations).
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startCluster, stopCluster, type Cluster } from "../../test/cluster/cluster-harness.js";
import { benchAdmissionLatency, printLatency } from "./admission-latency.js";
import { apiClient } from "./api-client.js";
import { benchApiCallCost, COST_PODS, loadCostPolicies, printCost } from "./apicall-cost.js";
import { addKwokNodes, bylawPid, bylawPorts, createObject, deletePolicies, loadNote } from "./cluster-steps.js";
import { benchInformerMemory, printMemory } from "./informer-memory.js";
import { BENCH_PRIORITY_CLASS } from "./policies.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
/** BENCH_PARTS: a comma list of latency, apicall, memory (all by default). */
const PARTS = new Set((process.env["BENCH_PARTS"] ?? "latency,apicall,memory").split(",").map((p) => p.trim()));
const num = (name: string, fallback: number, least = 1): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < least)
    throw new Error(`${name} must be a whole number from ${least}, not ${String(process.env[name])}`);
  return v;
};

async function parts(cluster: Cluster, corpus: string): Promise<void> {
  const api = apiClient(cluster.dir, 32);
  try {
    const nodes = ["kwok-node-0", ...(await addKwokNodes(api))];
    await createObject(api, "/apis/scheduling.k8s.io/v1/priorityclasses", BENCH_PRIORITY_CLASS);
    if (PARTS.has("latency")) {
      const latency = {
        creates: num("BENCH_CREATES", 500),
        concurrency: num("BENCH_CONCURRENCY", 8),
        warmup: num("BENCH_WARMUP", 50, 0),
        nodes,
        bylawPid: () => bylawPid(cluster),
        bylawMetrics: async () => (await fetch(`http://127.0.0.1:${bylawPorts(cluster).metricsPort}/metrics`)).text(),
      };
      printLatency(await benchAdmissionLatency(cluster, api, corpus, latency), latency);
      await deletePolicies(cluster);
    }
    if (!PARTS.has("apicall") && !PARTS.has("memory")) return;
    const costDir = join(cluster.dir, "bench-cost");
    mkdirSync(costDir, { recursive: true });
    const port = await loadCostPolicies(cluster, api, costDir, nodes);
    if (PARTS.has("apicall")) printCost(await benchApiCallCost(port, num("BENCH_REVIEWS", 400), COST_PODS));
    if (PARTS.has("memory"))
      printMemory(
        await benchInformerMemory(cluster, api, num("BENCH_NAMESPACES", 1000), num("BENCH_PODS", 10000), nodes),
      );
  } finally {
    api.close();
  }
}

async function main(): Promise<void> {
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  if (!existsSync(join(corpus, "pod-security")))
    throw new Error(`the Kyverno policy library corpus is not at ${corpus} (set BYLAW_CONFORMANCE_DIR)`);
  console.log(`bench:cluster: node ${process.version}, ${new Date().toISOString()}, ${loadNote()}`);
  const cluster = await startCluster(90 * 60_000, undefined, { withBylaw: true }).catch(async (e: unknown) => {
    // A failed `up` may have left components running: bring its folder down before failing.
    const dir = /scripts\/cluster\.sh up (\S+) failed/.exec(String(e))?.[1];
    if (dir !== undefined) await stopCluster(dir);
    throw e;
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    console.error(`bench:cluster: ${signal}; bringing ${cluster.dir} down`);
    void stopCluster(cluster.dir).finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  console.log(`cluster: scripts/cluster.sh up ${cluster.dir} --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
  let failed = false;
  let failure: unknown;
  try {
    await parts(cluster, corpus);
  } catch (e) {
    failed = true;
    failure = e;
  } finally {
    const down = await stopCluster(cluster.dir);
    if (down.code !== 0)
      console.error(`scripts/cluster.sh down ${cluster.dir} failed (exit ${down.code}): ${down.stderr}`);
    else if (process.env["BENCH_KEEP"] === "1") console.log(`cluster folder kept (BENCH_KEEP=1): ${cluster.dir}`);
    else rmSync(cluster.dir, { recursive: true, force: true });
  }
  if (failed) throw failure;
  console.log(`\nbench:cluster done, ${new Date().toISOString()}, ${loadNote()}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

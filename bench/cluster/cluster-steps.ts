/**
 * Steps the cluster bench parts share: kubectl against the bench cluster, the machine's load,
 * kwok nodes, namespaces, waiting for policies to be Ready and for Bylaw's webhook to cover Pods,
 * and Bylaw's pid and ports (DIR/pids/bylaw.pid, DIR/bylaw.env).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kubectlOk, eventually, run, type Cluster } from "../../test/cluster/cluster-harness.js";
import { pool, type ApiClient } from "./api-client.js";

export const KWOK_NODES = 12;

/** The 1, 5 and 15 minute load averages and the core count, for each part's heading. */
export function loadNote(): string {
  const [a, b, c] = readFileSync("/proc/loadavg", "utf8").split(" ");
  return `load average ${a} ${b} ${c} on ${String(readFileSync("/proc/cpuinfo", "utf8").match(/^processor\s/gm)?.length ?? "?")} cores`;
}

export function bylawPid(cluster: Cluster): number {
  const pid = cluster.pids.get("bylaw");
  if (pid === undefined) throw new Error(`no bylaw pid in ${cluster.dir}/pids (was the cluster started --with-bylaw?)`);
  return pid;
}

export function bylawPorts(cluster: Cluster): { port: number; metricsPort: number } {
  const env = readFileSync(join(cluster.dir, "bylaw.env"), "utf8");
  const get = (key: string): number => Number(new RegExp(`^${key}=(\\d+)$`, "m").exec(env)?.[1] ?? NaN);
  return { port: get("BYLAW_PORT"), metricsPort: get("BYLAW_METRICS_PORT") };
}

/** Fake nodes kwok manages (the annotation scripts/cluster.sh gives kwok-node-0), 1,000 Pods each. */
export async function addKwokNodes(api: ApiClient): Promise<string[]> {
  const names = Array.from({ length: KWOK_NODES }, (_, i) => `kwok-bench-${i}`);
  await pool(names.length, 4, async (i) => {
    const r = await api.call("POST", "/api/v1/nodes", {
      apiVersion: "v1", kind: "Node",
      metadata: { name: names[i], annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" }, labels: { type: "kwok", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64" } },
      status: { allocatable: { cpu: "64", memory: "256Gi", pods: "1000" }, capacity: { cpu: "64", memory: "256Gi", pods: "1000" } },
    });
    if (r.status !== 201 && r.status !== 409) throw new Error(`create node ${String(names[i])}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
  });
  return names;
}

export async function createNamespace(api: ApiClient, name: string): Promise<void> {
  const r = await api.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  if (r.status !== 201 && r.status !== 409) throw new Error(`create namespace ${name}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
}

interface PolicyList { items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] }

/** Applies a folder of ClusterPolicies; waits until each is Ready or settled not Ready; counts. */
export async function applyPolicies(cluster: Cluster, dir: string, expectAtLeast: number): Promise<{ ready: number; notReady: number; applyErrors: number }> {
  // Hundreds of policies take longer than the harness's 60 s kubectl timeout on a busy machine.
  const applied = await run("kubectl", ["--kubeconfig", cluster.kubeconfig, "apply", "--server-side", "--force-conflicts", "-f", dir], 600_000);
  if (applied.code !== 0 && applied.stderr.trim() === "") throw new Error(`kubectl apply -f ${dir} failed (exit ${applied.code}) with no message`);
  const refusals = applied.stderr.split("\n").filter((l) => l.trim() !== "");
  if (refusals[0] !== undefined) console.log(`  kubectl apply -f ${dir}: ${refusals.length} stderr lines; first: ${refusals[0].slice(0, 300)}`);
  const applyErrors = refusals.length;
  let last = { ready: 0, notReady: 0 };
  await eventually(`ClusterPolicies of ${dir} to be Ready`, 240_000, async () => {
    const list = JSON.parse(await kubectlOk(cluster, ["get", "cpol", "-o", "json"])) as PolicyList;
    const withStatus = list.items.filter((p) => (p.status?.conditions ?? []).some((c) => c.type === "Ready"));
    const ready = withStatus.filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length;
    last = { ready, notReady: withStatus.length - ready };
    return withStatus.length >= Math.min(expectAtLeast, list.items.length) ? true : undefined;
  });
  return { ...last, applyErrors };
}

/** Waits until Bylaw's resource validating webhook sends Pod CREATEs to it. */
export async function waitForPodWebhook(cluster: Cluster): Promise<void> {
  await eventually("Bylaw's validating webhook to cover Pods", 120_000, async () => {
    const cfg = JSON.parse(await kubectlOk(cluster, ["get", "validatingwebhookconfiguration", "bylaw-resource-validating-webhook-cfg", "-o", "json"])) as { webhooks?: { rules?: { resources?: string[]; operations?: string[] }[] }[] };
    const covers = (cfg.webhooks ?? []).some((w) => (w.rules ?? []).some((r) => (r.resources ?? []).some((x) => x === "pods" || x === "*") && (r.operations ?? []).some((o) => o === "CREATE" || o === "*")));
    return covers ? true : undefined;
  });
}


/** Deletes every ClusterPolicy (without kubectl's per-object wait) and waits until none is left. */
export async function deletePolicies(cluster: Cluster): Promise<void> {
  await kubectlOk(cluster, ["delete", "cpol", "--all", "--wait=false"]);
  await eventually("every ClusterPolicy to be deleted", 180_000, async () => ((await kubectlOk(cluster, ["get", "cpol", "-o", "name"])).trim() === "" ? true : undefined));
}

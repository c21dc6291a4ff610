/**
 * Steps the cluster bench parts share: kubectl against the bench cluster, the machine's load,
 * kwok nodes, namespaces, waiting for policies to be Ready and for Bylaw's webhook to cover Pods,
 * and Bylaw's pid and ports (DIR/pids/bylaw.pid, DIR/bylaw.env).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kubectlOk, eventually, run, type Cluster } from "../../test/cluster/cluster-harness.js";
import type { ApiClient } from "./api-client.js";
import { pool } from "../../test/support/pool.js";

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

/** Creates an object, or leaves the one of that name in place. */
export async function createObject(
  api: ApiClient,
  path: string,
  body: { readonly metadata: { readonly name: string } } & Record<string, unknown>,
): Promise<void> {
  const r = await api.call("POST", path, body);
  if (r.status !== 201 && r.status !== 409)
    throw new Error(`create ${path} ${body.metadata.name}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
}

/** Fake nodes kwok manages (the annotation scripts/cluster.sh gives kwok-node-0), 1,000 Pods each. */
export async function addKwokNodes(api: ApiClient): Promise<string[]> {
  const names = Array.from({ length: KWOK_NODES }, (_, i) => `kwok-bench-${i}`);
  await pool(names.length, 4, async (i) => {
    const r = await api.call("POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: names[i],
        annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
        labels: { type: "kwok", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64" },
      },
      status: {
        allocatable: { cpu: "64", memory: "256Gi", pods: "1000" },
        capacity: { cpu: "64", memory: "256Gi", pods: "1000" },
      },
    });
    if (r.status !== 201 && r.status !== 409)
      throw new Error(`create node ${String(names[i])}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
  });
  return names;
}

export async function createNamespace(api: ApiClient, name: string): Promise<void> {
  await createObject(api, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

interface PolicyList {
  items: {
    metadata: { name: string };
    status?: {
      conditions?: { type: string; status: string }[];
      conditionStatus?: { ready?: boolean; conditions?: unknown[] };
    };
  }[];
}

/** A policy resource kubectl lists, and how Bylaw's status says one is Ready (or settled not Ready). */
export interface PolicyResource {
  readonly resource: string;
  /** true Ready, false settled not Ready, undefined no status yet. */
  readonly ready: (status: PolicyList["items"][number]["status"]) => boolean | undefined;
}

/** kyverno.io ClusterPolicy: the Ready condition. */
export const CLUSTER_POLICIES: PolicyResource = {
  resource: "clusterpolicies.kyverno.io",
  ready: (s) => {
    const c = (s?.conditions ?? []).find((x) => x.type === "Ready");
    return c === undefined ? undefined : c.status === "True";
  },
};

/** policies.kyverno.io ValidatingPolicy: conditionStatus.ready once Bylaw wrote its conditions. */
export const VALIDATING_POLICIES: PolicyResource = {
  resource: "validatingpolicies.policies.kyverno.io",
  ready: (s) => ((s?.conditionStatus?.conditions ?? []).length === 0 ? undefined : s?.conditionStatus?.ready === true),
};

export interface AppliedPolicies {
  readonly ready: number;
  readonly notReady: number;
  /** Names of the policies not Ready, with no reason (read them with kubectl describe). */
  readonly notReadyNames: readonly string[];
  /** Objects of the resource in the cluster when the wait ended. */
  readonly inCluster: number;
  /** Of those, how many still had no status from Bylaw when the wait gave up (5 min). */
  readonly noStatus: number;
  /** kubectl apply's stderr lines (refusals by Bylaw's policy-validating webhook among them). */
  readonly refusals: readonly string[];
}

/** Applies a folder of policies; waits until each one in the cluster is Ready or settled not Ready; counts. */
export async function applyPolicies(
  cluster: Cluster,
  dir: string,
  kind: PolicyResource = CLUSTER_POLICIES,
): Promise<AppliedPolicies> {
  const apply = async (): Promise<string[]> => {
    // Hundreds of policies take longer than the harness's 60 s kubectl timeout on a busy machine.
    const applied = await run(
      "kubectl",
      ["--kubeconfig", cluster.kubeconfig, "apply", "--server-side", "--force-conflicts", "-f", dir],
      900_000,
    );
    if (applied.code !== 0 && applied.stderr.trim() === "")
      throw new Error(`kubectl apply -f ${dir} failed (exit ${applied.code}) with no message`);
    return applied.stderr.split("\n").filter((l) => l.trim() !== "" && !/^Warning: /.test(l));
  };
  // A refusal that says a cache was still syncing (Bylaw's lazy informers, as the first policies
  // register webhooks for policy kinds) is transient: the same apply is run once more, and only what
  // it still refuses is counted.
  let refusals = await apply();
  if (refusals.some((l) => /has not synced yet/.test(l))) {
    console.log(
      `  kubectl apply -f ${dir}: ${refusals.length} refused while a cache synced (first: ${(refusals[0] ?? "").slice(0, 200)}); applying again`,
    );
    refusals = await apply();
  }
  let last: AppliedPolicies = { ready: 0, notReady: 0, notReadyNames: [], inCluster: 0, noStatus: 0, refusals };
  const settled = eventually(`${kind.resource} of ${dir} to be Ready`, 300_000, async () => {
    const list = JSON.parse(await kubectlOk(cluster, ["get", kind.resource, "-o", "json"])) as PolicyList;
    const states = list.items.map((p) => ({ name: p.metadata.name, ready: kind.ready(p.status) }));
    const notReadyNames = states.filter((p) => p.ready === false).map((p) => p.name);
    const noStatus = states.filter((p) => p.ready === undefined).length;
    last = {
      ready: states.filter((p) => p.ready === true).length,
      notReady: notReadyNames.length,
      notReadyNames,
      inCluster: list.items.length,
      noStatus,
      refusals,
    };
    return noStatus === 0 ? true : undefined;
  });
  // A policy Bylaw never writes a status for is counted (noStatus), not a reason to stop the bench.
  await settled.catch(() => undefined);
  return last;
}

/** Waits until Bylaw's resource validating webhook sends Pod CREATEs to it. */
export async function waitForPodWebhook(cluster: Cluster): Promise<void> {
  await eventually("Bylaw's validating webhook to cover Pods", 120_000, async () => {
    const cfg = JSON.parse(
      await kubectlOk(cluster, [
        "get",
        "validatingwebhookconfiguration",
        "bylaw-resource-validating-webhook-cfg",
        "-o",
        "json",
      ]),
    ) as { webhooks?: { rules?: { resources?: string[]; operations?: string[] }[] }[] };
    const covers = (cfg.webhooks ?? []).some((w) =>
      (w.rules ?? []).some(
        (r) =>
          (r.resources ?? []).some((x) => x === "pods" || x === "*") &&
          (r.operations ?? []).some((o) => o === "CREATE" || o === "*"),
      ),
    );
    return covers ? true : undefined;
  });
}

/** Deletes every ClusterPolicy and ValidatingPolicy (without kubectl's per-object wait) and waits until none is left. */
export async function deletePolicies(cluster: Cluster): Promise<void> {
  for (const { resource } of [CLUSTER_POLICIES, VALIDATING_POLICIES]) {
    await kubectlOk(cluster, ["delete", resource, "--all", "--wait=false"]);
    await eventually(`every ${resource} to be deleted`, 180_000, async () =>
      (await kubectlOk(cluster, ["get", resource, "-o", "name"])).trim() === "" ? true : undefined,
    );
  }
}

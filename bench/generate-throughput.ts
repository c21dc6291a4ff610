/**
 * Generate throughput bench (issue 35; printed figures, not a timed test): a real control plane
 * (`scripts/cluster.sh up DIR --with-bylaw`, Bylaw's generate controller on, acting as the
 * background controller's ServiceAccount as in the generate cluster test), Kyverno's sync-secrets
 * ClusterPolicy (clone `default/regcred` into every new Namespace, synchronize), then N Namespaces
 * (default 500, `BENCH_NAMESPACES`) created as fast as the API server takes them. Measured: the wall
 * time from the first create until every Namespace has its Secret (namespaces per second), the time
 * to half of them, the Bylaw process's CPU (utime+stime from /proc) over that time, and the
 * UpdateRequests left at the end (none once the work is done).
 *
 * Run: `npm run bench:generate` (or `npm run build && node dist/bench/generate-throughput.js`).
 */
import {
  eventually,
  kubectlOk,
  readPids,
  restartBylaw,
  startCluster,
  stopCluster,
} from "../test/cluster/cluster-harness.js";
import { apiClient, type ApiClient } from "./cluster/api-client.js";
import { pool } from "../test/support/pool.js";
import { createNamespace, loadNote } from "./cluster/cluster-steps.js";
import { cpuSeconds } from "./cluster/process-cpu.js";
import { GENERATE_AS_BACKGROUND, GENERATE_AS_BACKGROUND_ARGS } from "../test/cluster/generate-as-background.js";

const NAMESPACES = Number(process.env["BENCH_NAMESPACES"] ?? 500);
const CONCURRENCY = 16;
const PREFIX = "gen-bench-";

/** What Kyverno's docs tell users to add so the background controller may clone Secrets. */
const SECRET_GRANTS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kyverno:secrets:manage
  labels:
    rbac.kyverno.io/aggregate-to-background-controller: "true"
rules:
  - apiGroups: [""]
    resources: [secrets]
    verbs: [get, list, watch, create, update, delete]
`;

const REGCRED = `apiVersion: v1
kind: Secret
metadata:
  name: regcred
  namespace: default
type: Opaque
stringData:
  token: bench
`;

/** Kyverno's sync-secrets sample policy. */
const SYNC_SECRETS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: sync-secrets
spec:
  rules:
    - name: sync-image-pull-secret
      match:
        any:
          - resources:
              kinds: [Namespace]
      generate:
        apiVersion: v1
        kind: Secret
        name: regcred
        namespace: "{{request.object.metadata.name}}"
        synchronize: true
        clone:
          namespace: default
          name: regcred
`;

/** The bench's Namespaces that have their generated Secret. */
async function generatedCount(api: ApiClient): Promise<number> {
  const r = await api.call(
    "GET",
    `/api/v1/secrets?labelSelector=${encodeURIComponent("generate.kyverno.io/policy-name=sync-secrets")}`,
  );
  if (r.status !== 200) throw new Error(`list secrets: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  const items = (JSON.parse(r.body) as { items?: { metadata?: { namespace?: string } }[] }).items ?? [];
  return items.filter((s) => s.metadata?.namespace?.startsWith(PREFIX) === true).length;
}

async function main(): Promise<void> {
  const cluster = await startCluster(90 * 60_000, undefined, { withBylaw: true });
  const api = apiClient(cluster.dir, 32);
  try {
    await kubectlOk(cluster, ["apply", "-f", "-"], GENERATE_AS_BACKGROUND);
    await restartBylaw(cluster, { extraArgs: GENERATE_AS_BACKGROUND_ARGS });
    await kubectlOk(cluster, ["apply", "-f", "-"], SECRET_GRANTS);
    await kubectlOk(cluster, ["apply", "-f", "-"], REGCRED);
    await kubectlOk(cluster, ["apply", "-f", "-"], SYNC_SECRETS);
    // The policy is served once a probe Namespace gets its Secret.
    await eventually("sync-secrets to clone into a probe namespace", 180_000, async () => {
      const ns = `probe-${Date.now()}`;
      await createNamespace(api, ns);
      for (let i = 0; i < 20; i++) {
        const r = await api.call("GET", `/api/v1/namespaces/${ns}/secrets/regcred`);
        if (r.status === 200) return true;
        await new Promise((done) => setTimeout(done, 1000));
      }
      return undefined;
    });
    // restart-bylaw started a new process: its pid is in the folder, not in the cluster's start-up list.
    const pid = readPids(cluster.dir).get("bylaw");
    if (pid === undefined) throw new Error(`no bylaw pid in ${cluster.dir}/pids`);
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    let createdAt = 0;
    const creating = pool(NAMESPACES, CONCURRENCY, (i) => createNamespace(api, `${PREFIX}${i}`)).then(
      () => (createdAt = performance.now()),
    );
    let halfAt = 0;
    await eventually(`${NAMESPACES} namespaces to have their Secret`, 60 * 60_000, async () => {
      await new Promise((done) => setTimeout(done, 500));
      const n = await generatedCount(api);
      if (halfAt === 0 && n >= NAMESPACES / 2) halfAt = performance.now();
      return n >= NAMESPACES ? true : undefined;
    });
    const allAt = performance.now();
    await creating;
    const cpu = cpuSeconds(pid) - cpu0;
    const left = (await kubectlOk(cluster, ["get", "updaterequests.kyverno.io", "-A", "-o", "name"]))
      .split("\n")
      .filter((l) => l.trim() !== "").length;
    const s = (ms: number): string => ((ms - t0) / 1000).toFixed(1);
    console.log(`generate throughput, sync-secrets (clone, synchronize) × ${NAMESPACES} new Namespaces; ${loadNote()}`);
    console.log(
      `| namespaces | created in s | half have the Secret at s | all at s | namespaces/s | Bylaw CPU s | CPU ms per namespace | UpdateRequests left |`,
    );
    console.log(`|---|---|---|---|---|---|---|---|`);
    console.log(
      `| ${NAMESPACES} | ${s(createdAt)} | ${s(halfAt)} | ${s(allAt)} | ${(NAMESPACES / ((allAt - t0) / 1000)).toFixed(1)} | ${cpu.toFixed(1)} | ${((cpu * 1000) / NAMESPACES).toFixed(1)} | ${left} |`,
    );
  } finally {
    api.close();
    await stopCluster(cluster.dir);
  }
}

await main();

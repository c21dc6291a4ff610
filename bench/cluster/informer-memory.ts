/**
 * Part 2: Bylaw's memory with informer caches over many objects. With the apiCall policy of part 3
 * loaded (it lists Pods, so Bylaw keeps a cluster-wide Pod cache), the bench creates N namespaces
 * and M Pods bound to kwok nodes through a raw HTTPS client, waits until Bylaw's Pod cache holds
 * them (its RSS settles), then reads VmRSS, VmHWM, RssAnon and RssFile from /proc/<pid>/status
 * (Bylaw's /metrics exports no process memory gauge).
 */
import { readFileSync } from "node:fs";
import { eventually, type Cluster } from "../../test/cluster/cluster-harness.js";
import type { ApiClient, ApiResponse } from "./api-client.js";
import { pool } from "../../test/support/pool.js";
import { bylawPid, createNamespace, loadNote } from "./cluster-steps.js";
import { missingDefaultServiceAccount } from "./denials.js";
import { restrictedPod } from "./policies.js";

function statusMiB(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m?.[1] === undefined ? NaN : Number(m[1]) / 1024;
}

export interface MemoryRow {
  readonly namespaces: number;
  readonly pods: number;
  readonly createSeconds: number;
  readonly failedCreates: number;
  readonly podsSeen: number;
  readonly idleRss: number;
  readonly rss: number;
  readonly hwm: number;
  readonly rssAnon: number;
  readonly rssFile: number;
  readonly load: string;
}

export async function benchInformerMemory(
  cluster: Cluster,
  api: ApiClient,
  namespaces: number,
  pods: number,
  nodes: readonly string[],
): Promise<MemoryRow> {
  const pid = bylawPid(cluster);
  const idleRss = statusMiB(pid, "VmRSS");
  const names = Array.from({ length: namespaces }, (_, i) => `mem-${i}`);
  const t0 = performance.now();
  await pool(names.length, 16, (i) => createNamespace(api, names[i] ?? "mem-0"));
  // The controller-manager creates each namespace's `default` ServiceAccount a moment after the
  // namespace; a Pod created before it is refused by the ServiceAccount admission, so it is retried.
  const create = async (i: number): Promise<ApiResponse> => {
    for (let attempt = 0; ; attempt++) {
      const r = await api.call(
        "POST",
        `/api/v1/namespaces/${names[i % names.length] ?? "mem-0"}/pods`,
        restrictedPod(`m-${i}`, nodes[i % nodes.length] ?? "kwok-node-0"),
      );
      if (!missingDefaultServiceAccount(r.status, r.body) || attempt >= 120) return r;
      await new Promise((done) => setTimeout(done, 500));
    }
  };
  const results = await pool(pods, 16, create);
  const createSeconds = (performance.now() - t0) / 1000;
  const failed = results.filter((r) => r.status !== 201);
  if (failed[0] !== undefined)
    console.log(
      `  memory: ${failed.length} creates failed; first: HTTP ${failed[0].status} ${failed[0].body.slice(0, 300)}`,
    );
  // The API server's count, then Bylaw's: the Pod cache follows the watch; wait until RSS settles.
  // (a one-item LIST: kubectl get of 10,000 Pods outran the harness's 60 s timeout on a busy machine)
  const page = await api.call("GET", "/api/v1/pods?limit=1");
  const meta = JSON.parse(page.body) as { items?: unknown[]; metadata?: { remainingItemCount?: number } };
  const podsSeen = (meta.items?.length ?? 0) + (meta.metadata?.remainingItemCount ?? 0);
  let last = 0;
  await eventually("Bylaw's RSS to settle after the creates", 180_000, async () => {
    await new Promise((r) => setTimeout(r, 5000));
    const now = statusMiB(pid, "VmRSS");
    const settled = Math.abs(now - last) < 2;
    last = now;
    return settled ? true : undefined;
  });
  return {
    namespaces,
    pods,
    createSeconds,
    failedCreates: failed.length,
    podsSeen,
    idleRss,
    rss: statusMiB(pid, "VmRSS"),
    hwm: statusMiB(pid, "VmHWM"),
    rssAnon: statusMiB(pid, "RssAnon"),
    rssFile: statusMiB(pid, "RssFile"),
    load: loadNote(),
  };
}

export function printMemory(r: MemoryRow): void {
  console.log(
    `\n## 2. informer caches: ${r.namespaces} namespaces and ${r.pods} Pods on kwok nodes (created in ${r.createSeconds.toFixed(0)} s, ${r.failedCreates} failed; ${r.podsSeen} Pods in the cluster), Bylaw watching Pods for an apiCall policy`,
  );
  console.log(
    `   reproduce: BENCH_PARTS=memory BENCH_NAMESPACES=${r.namespaces} BENCH_PODS=${r.pods} npm run bench:cluster (${r.load})`,
  );
  console.log("| Bylaw | MiB |");
  console.log("|---|---|");
  console.log(`| VmRSS before the creates (Pod cache of part 3 only) | ${r.idleRss.toFixed(1)} |`);
  console.log(`| VmRSS after, settled | ${r.rss.toFixed(1)} (goal < 200) |`);
  console.log(`| VmHWM (peak) | ${r.hwm.toFixed(1)} |`);
  console.log(
    `| of which RssAnon (heap and buffers) / RssFile (code) | ${r.rssAnon.toFixed(1)} / ${r.rssFile.toFixed(1)} |`,
  );
}

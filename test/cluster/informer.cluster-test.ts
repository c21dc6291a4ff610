/**
 * Issue 22 §2 against the real API server (`npm run test:cluster`): src/kube's client and informers.
 * - list then watch sees create, update and delete;
 * - a resourceVersion compacted in etcd answers 410 Expired to the re-watch, and the cache relists
 *   (ConfigMaps are served without the watch cache here, `--watch-cache-sizes=configmaps#0`, so
 *   the watch reads etcd, whose history the test compacts through etcd's own API);
 * - a bookmark moves the resourceVersion on (the watch cache sends one about every minute);
 * - a cache over its memory budget reports unhealthy and keeps nothing;
 * - kubeconfig: client certificate; a ServiceAccount token from a tokenFile.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  eventually,
  startCluster,
  stopCluster,
  type Cluster,
  kubectlOk as kubectlIn,
  started,
} from "./cluster-harness.js";
import { KubeClient } from "../../src/kube/kube-client.js";
import { Informer, type InformerEvent } from "../../src/kube/informer.js";
import { resolveConnection } from "../../src/kube/kubeconfig.js";
import type { KubeObject } from "../../src/kube/types.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let client: KubeClient | undefined;
const informers: Informer[] = [];

const current = (): Cluster => started(cluster);

const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);

function informer(
  resource: string,
  budgetBytes = 64 << 20,
  onEvent?: (e: InformerEvent, o: KubeObject) => void,
): Informer {
  if (client === undefined) throw new Error("no client");
  const inf = new Informer({
    client,
    gvr: { group: "", version: "v1", resource },
    budgetBytes,
    random: { next: Math.random },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    watchTimeoutSeconds: 8,
    ...(onEvent !== undefined ? { onEvent } : {}),
  });
  informers.push(inf);
  inf.start();
  return inf;
}

/** etcd's client URL, from the running kube-apiserver's flags. */
function etcdUrl(): string {
  const pid = current().pids.get("kube-apiserver");
  const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  const flag = args.find((a) => a.startsWith("--etcd-servers="));
  if (flag === undefined) throw new Error("kube-apiserver has no --etcd-servers flag");
  return flag.slice("--etcd-servers=".length);
}

async function etcd(path: string, body: unknown): Promise<{ header?: { revision?: string } }> {
  const r = await fetch(`${etcdUrl()}${path}`, { method: "POST", body: JSON.stringify(body) });
  assert.equal(r.status, 200, `etcd ${path}: ${r.status}`);
  return (await r.json()) as { header?: { revision?: string } };
}

describe("src/kube informers against a real API server", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  let secrets: Informer | undefined;
  let secretsListRv = 0;

  before(
    async () => {
      cluster = await startCluster(buildTimeoutMs, ["--watch-cache-sizes=configmaps#0"]);
      console.log(`# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s`);
      const conn = resolveConnection({ kubeconfigFlag: cluster.kubeconfig, env: {}, now: () => Date.now() });
      if (!conn.ok) throw new Error(conn.error.message);
      client = new KubeClient({ connection: conn.value });
      // Started first: its watch lives long enough (300 s timeout) to see the minute's bookmark.
      if (client === undefined) return;
      secrets = new Informer({
        client,
        gvr: { group: "", version: "v1", resource: "secrets" },
        budgetBytes: 1 << 24,
        random: { next: Math.random },
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      });
      informers.push(secrets);
      secrets.start();
      await secrets.synced();
      secretsListRv = Number(secrets.resourceVersion);
    },
    { timeout: buildTimeoutMs + 60_000 },
  );

  after(async () => {
    for (const inf of informers) inf.stop();
    client?.close();
    if (cluster === undefined) return;
    const down = await stopCluster(cluster.dir);
    assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
    rmSync(cluster.dir, { recursive: true, force: true });
  });

  test("list then watch: the cache sees a ConfigMap created, updated and deleted, indexed by namespace", async () => {
    const seen: string[] = [];
    const cms = informer("configmaps", 64 << 20, (e, o) => {
      if (o.metadata?.name === "watched")
        seen.push(`${e}:${(o["data"] as Record<string, string> | undefined)?.["v"] ?? ""}`);
    });
    await cms.synced();
    assert.ok(cms.health().ok);
    assert.ok(cms.list("kube-system").length > 0, "kube-system ConfigMaps were listed");
    await kubectlOk(["create", "namespace", "informed"]);
    await kubectlOk(["create", "configmap", "watched", "-n", "informed", "--from-literal=v=1"]);
    await eventually("the created ConfigMap in the cache", 20_000, async () =>
      cms.get("informed", "watched") !== undefined ? true : undefined,
    );
    assert.ok(cms.list("informed").some((o) => o.metadata?.name === "watched"));
    assert.ok(
      !cms.list("default").some((o) => o.metadata?.name === "watched"),
      "the namespace index keeps namespaces apart",
    );
    assert.equal(
      (cms.get("informed", "watched")?.metadata as Record<string, unknown>)["managedFields"],
      undefined,
      "managedFields are not kept",
    );
    await kubectlOk(["patch", "configmap", "watched", "-n", "informed", "-p", '{"data":{"v":"2"}}']);
    await eventually("the update in the cache", 20_000, async () =>
      (cms.get("informed", "watched")?.["data"] as Record<string, string> | undefined)?.["v"] === "2"
        ? true
        : undefined,
    );
    await kubectlOk(["delete", "configmap", "watched", "-n", "informed"]);
    await eventually("the delete in the cache", 20_000, async () =>
      cms.get("informed", "watched") === undefined ? true : undefined,
    );
    assert.deepEqual(seen, ["added:1", "modified:2", "deleted:2"]);
    assert.ok(!cms.list("informed").some((o) => o.metadata?.name === "watched"));
    assert.equal(cms.counts.lists, 1);
  });

  test("a resourceVersion compacted away: the re-watch gets 410 Expired and the cache relists, missing nothing", async () => {
    const cms = informer("configmaps");
    await cms.synced();
    await kubectlOk(["create", "configmap", "before-compaction", "-n", "default"]);
    await eventually("the ConfigMap in the cache", 20_000, async () =>
      cms.get("default", "before-compaction") !== undefined ? true : undefined,
    );
    // Move etcd's revision at least two past the cache's resourceVersion with another kind (a
    // re-watch from rv starts at rv+1), then compact the history up to there.
    await kubectlOk(["create", "serviceaccount", "moves-revision", "-n", "default"]);
    await kubectlOk(["create", "serviceaccount", "moves-revision-again", "-n", "default"]);
    const head = await etcd("/v3/kv/range", { key: "AA==" });
    assert.ok(Number(head.header?.revision) > Number(cms.resourceVersion) + 1);
    await etcd("/v3/kv/compaction", { revision: head.header?.revision, physical: true });
    // No ConfigMap changes now, so the open watch's resourceVersion stays behind the compaction;
    // the watch ends within 8 s and its re-watch from there is answered 410.
    await eventually("a 410 and a relist", 40_000, async () =>
      cms.counts.gone >= 1 && cms.counts.lists >= 2 ? true : undefined,
    );
    assert.ok(
      Number(cms.resourceVersion) >= Number(head.header?.revision),
      "the relist's resourceVersion is past the compaction",
    );
    await kubectlOk(["create", "configmap", "after-compaction", "-n", "default"]);
    await eventually("the ConfigMap created after the relist in the cache", 20_000, async () =>
      cms.get("default", "after-compaction") !== undefined ? true : undefined,
    );
    assert.ok(cms.get("default", "before-compaction") !== undefined);
    assert.ok(cms.health().ok);
  });

  test("a cache over its memory budget is unhealthy, says why, and holds nothing", async () => {
    const small = informer("configmaps", 2000);
    await small.synced();
    const health = small.health();
    assert.equal(health.ok, false);
    if (!health.ok) assert.match(health.reason, /configmaps\.v1 cache needs more than its memory budget of 0\.0 MiB/);
    assert.deepEqual(small.list(), []);
    assert.equal(small.usedBytes, 0);
  });

  test("a client certificate user and a bearer token from a tokenFile both authenticate", async () => {
    await kubectlOk(["create", "serviceaccount", "reader", "-n", "default"]);
    await kubectlOk([
      "create",
      "clusterrolebinding",
      "reader-view",
      "--clusterrole=view",
      "--serviceaccount=default:reader",
    ]);
    const token = (await kubectlOk(["create", "token", "reader", "-n", "default"])).trim();
    const dir = current().dir;
    writeFileSync(join(dir, "reader.token"), token);
    const admin = readFileSync(current().kubeconfig, "utf8");
    const server = /server: (\S+)/.exec(admin)?.[1] ?? "";
    const ca = /certificate-authority-data: (\S+)/.exec(admin)?.[1] ?? "";
    writeFileSync(
      join(dir, "reader.kubeconfig"),
      `apiVersion: v1\nkind: Config\ncurrent-context: r\ncontexts: [{name: r, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: "${server}", certificate-authority-data: ${ca}}}]\nusers: [{name: u, user: {tokenFile: reader.token}}]\n`,
    );
    const conn = resolveConnection({ kubeconfigFlag: join(dir, "reader.kubeconfig"), env: {}, now: () => Date.now() });
    assert.ok(conn.ok, conn.ok ? "" : conn.error.message);
    const reader = new KubeClient({ connection: conn.value });
    try {
      const list = (await reader.getJson("/api/v1/namespaces/default/configmaps")) as { items: unknown[] };
      assert.ok(list.items.length >= 1);
      // view does not read Secrets: the server's 403 comes back as an error value with its reason.
      await assert.rejects(
        reader.getJson("/api/v1/namespaces/default/secrets"),
        (e: Error & { status?: number; reason?: string }) =>
          e.status === 403 && e.reason === "Forbidden" && /secrets is forbidden/.test(e.message),
      );
    } finally {
      reader.close();
    }
  });

  test("a bookmark moves the resourceVersion on without any Secret changing", async () => {
    const inf = secrets;
    assert.ok(inf !== undefined);
    await eventually("a bookmark on the Secrets watch (sent about once a minute)", 240_000, async () =>
      inf.counts.bookmarks >= 1 ? true : undefined,
    );
    assert.ok(
      Number(inf.resourceVersion) > secretsListRv,
      `resourceVersion ${inf.resourceVersion} is past the list's ${secretsListRv}`,
    );
    assert.equal(inf.counts.lists, 1);
  });
});

/**
 * `npm run bench:api-writes`: what one API write costs the client on this machine, the floor under
 * issue 35's first background scan (one PolicyReport create per resource, plus Events). On the
 * control plane of `scripts/cluster.sh` (no Bylaw), N ConfigMap creates with a report-sized body, 8
 * in flight, answered with the object's metadata only as the reports writer asks, by Bylaw's KubeClient (HTTPS/1.1, keep-alive, as every controller writes) and by a bare
 * `node:http2` session on the same TLS context (as client-go talks to the API server), in alternating
 * rounds. Prints CPU µs per create of this process (the client), of kube-apiserver and of etcd, and
 * what 10,000 creates cost the client at that rate. Figures, never verdicts. BENCH_WRITES (default
 * 2,000) creates per round, BENCH_ROUNDS (default 3) rounds per client.
 */
import { connect, type ClientHttp2Session } from "node:http2";
import { createSecureContext } from "node:tls";
import { resolveConnection } from "../src/kube/kubeconfig.js";
import { KubeClient } from "../src/kube/kube-client.js";
import type { KubeConnection } from "../src/kube/types.js";
import { startCluster, stopCluster, type Cluster } from "../test/cluster/cluster-harness.js";
import { pool } from "../test/support/pool.js";
import { cpuSeconds } from "./cluster/process-cpu.js";

const WRITES = Number(process.env["BENCH_WRITES"] ?? 2000);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const IN_FLIGHT = 8;
const NAMESPACE = "api-writes";
/** As the reports writer asks (src/kube/report-calls.ts): the created object's metadata only. */
const ACCEPT_METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json";

/** A body the size of a Pod's PolicyReport with 19 results (about 6 KB). */
function configMap(name: string): string {
  const data: Record<string, string> = {};
  for (let i = 0; i < 19; i++) data[`result-${i}`] = `policy-${i} rule-${i} pass validation rule passed`.repeat(6);
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NAMESPACE }, data });
}

type Create = (name: string) => Promise<void>;

function kubeClientCreate(connection: KubeConnection): { create: Create; close(): void } {
  const client = new KubeClient({ connection, qps: 100_000, burst: 100_000 });
  const path = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  return {
    create: async (name) => {
      await client.sendJson("POST", path, JSON.parse(configMap(name)) as unknown, { answer: "metadata" });
    },
    close: () => client.close(),
  };
}

function http2Create(connection: KubeConnection): { create: Create; close(): void } {
  const secureContext = createSecureContext({
    ...(connection.ca !== undefined ? { ca: connection.ca } : {}),
    ...(connection.cert !== undefined ? { cert: connection.cert } : {}),
    ...(connection.key !== undefined ? { key: connection.key } : {}),
  });
  const session: ClientHttp2Session = connect(connection.server, { secureContext });
  const path = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  const create: Create = (name) =>
    new Promise((resolve, reject) => {
      const body = configMap(name);
      const stream = session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/json",
        accept: ACCEPT_METADATA,
        "content-length": Buffer.byteLength(body),
      });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on("response", (headers) => (status = Number(headers[":status"])));
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const answer = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
        if (status >= 300) reject(new Error(`HTTP ${status}: ${JSON.stringify(answer).slice(0, 200)}`));
        else resolve();
      });
      stream.on("error", reject);
      stream.end(body);
    });
  return { create, close: () => session.close() };
}

interface Round {
  readonly client: number;
  readonly apiserver: number;
  readonly etcd: number;
  readonly wall: number;
}

async function round(cluster: Cluster, create: Create, tag: string): Promise<Round> {
  const apiserver = cluster.pids.get("kube-apiserver");
  const etcd = cluster.pids.get("etcd");
  if (apiserver === undefined || etcd === undefined) throw new Error("no kube-apiserver or etcd pid");
  const before = { cpu: process.cpuUsage(), apiserver: cpuSeconds(apiserver), etcd: cpuSeconds(etcd) };
  const t0 = performance.now();
  await pool(WRITES, IN_FLIGHT, (i) => create(`${tag}-${i}`));
  const cpu = process.cpuUsage(before.cpu);
  return {
    client: (cpu.user + cpu.system) / WRITES,
    apiserver: ((cpuSeconds(apiserver) - before.apiserver) * 1e6) / WRITES,
    etcd: ((cpuSeconds(etcd) - before.etcd) * 1e6) / WRITES,
    wall: (performance.now() - t0) / 1000,
  };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

async function main(): Promise<void> {
  const cluster = await startCluster(30 * 60_000);
  try {
    const conn = resolveConnection({ kubeconfigFlag: cluster.kubeconfig, env: {}, now: () => Date.now() });
    if (!conn.ok) throw new Error(conn.error.message);
    const made = await cluster.kubectl(["create", "namespace", NAMESPACE]);
    if (made.code !== 0) throw new Error(made.stderr);
    console.log(
      `api-writes: node ${process.version}; ${WRITES} ConfigMap creates of ${configMap("x").length} bytes per round, ${IN_FLIGHT} in flight, ${ROUNDS} rounds per client, alternating`,
    );
    const clients = [
      { label: "Bylaw's KubeClient (HTTPS/1.1 keep-alive)", ...kubeClientCreate(conn.value) },
      { label: "node:http2 session (one connection)", ...http2Create(conn.value) },
    ];
    // Warm both (TLS handshakes, JIT) before measuring.
    for (const [i, c] of clients.entries()) await pool(300, IN_FLIGHT, (n) => c.create(`warm-c${i}-${n}`));
    const rounds = new Map<string, Round[]>(clients.map((c) => [c.label, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, c] of clients.entries()) rounds.get(c.label)?.push(await round(cluster, c.create, `r${r}-c${i}`));
    }
    for (const c of clients) {
      const rs = rounds.get(c.label) ?? [];
      const client = median(rs.map((x) => x.client));
      console.log(
        `api-writes: ${c.label}: client ${client.toFixed(0)} CPU µs per create (rounds ${rs.map((x) => x.client.toFixed(0)).join(", ")}); ` +
          `kube-apiserver ${median(rs.map((x) => x.apiserver)).toFixed(0)} µs, etcd ${median(rs.map((x) => x.etcd)).toFixed(0)} µs; ` +
          `${(WRITES / median(rs.map((x) => x.wall))).toFixed(0)} creates/s; 10,000 creates: ${((client * 10_000) / 1e6).toFixed(1)} s of client CPU`,
      );
      c.close();
    }
  } finally {
    await stopCluster(cluster.dir);
  }
}

await main();

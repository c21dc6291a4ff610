/**
 * `npm run bench:metrics`: `/metrics` of a `bylaw serve` child (the shipped pss-restricted set) after
 * the hostile label workloads of issue 14: 50 reviews with a 100 KB namespace, then 10,000
 * namespaces. Prints each scrape's size and time, and the slowest review answered while scrapes
 * ran. Before the label bounds, the first workload made every scrape fail (RSS 2.9 GB) and the
 * second made a 200 MB scrape that stalled reviews for 7.5 s. Figures, never verdicts.
 */
import { request as httpRequest } from "node:http";
import { Agent, request } from "node:https";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { startServe } from "./memory/serve-process.js";
import { rssMiB } from "./webhook/load.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const agent = new Agent({ keepAlive: true, maxSockets: 16, rejectUnauthorized: false });

function review(i: number, namespace: string): string {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `p${i}`, namespace },
    spec: { containers: [{ name: "c", image: "nginx:1.25" }] },
  };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `u${i}`,
      kind: { group: "", version: "v1", kind: "Pod" },
      namespace,
      name: `p${i}`,
      operation: "CREATE",
      userInfo: { username: "dev" },
      object: pod,
    },
  });
}

function post(port: number, body: string): Promise<number> {
  const started = performance.now();
  return new Promise((done) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/validate/fail",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => done(performance.now() - started));
      },
    );
    req.on("error", () => done(performance.now() - started));
    req.end(body);
  });
}

function scrape(port: number): Promise<{ status: number; bytes: number; ms: number }> {
  const started = performance.now();
  return new Promise((done) => {
    const req = httpRequest({ host: "127.0.0.1", port, path: "/metrics", agent: false }, (res) => {
      let bytes = 0;
      res.on("data", (c: Buffer) => (bytes += c.length));
      res.on("end", () => done({ status: res.statusCode ?? 0, bytes, ms: performance.now() - started }));
    });
    req.on("error", () => done({ status: 0, bytes: 0, ms: performance.now() - started }));
    req.end();
  });
}

async function send(port: number, bodies: (i: number) => string, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) await post(port, bodies(next++));
    }),
  );
}

/** Three scrapes while reviews keep arriving: sizes, times, and the slowest review meanwhile. */
async function measure(label: string, port: number, metricsPort: number, pid: number): Promise<void> {
  let stop = false;
  let slowest = 0;
  let reviews = 0;
  const load = (async () => {
    while (!stop) {
      slowest = Math.max(slowest, await post(port, review(reviews, "shop")));
      reviews++;
    }
  })();
  const scrapes = [];
  for (let i = 0; i < 3; i++) scrapes.push(await scrape(metricsPort));
  stop = true;
  await load;
  const s = scrapes
    .map((x) => `${x.status} ${(x.bytes / 1024 / 1024).toFixed(2)} MB in ${x.ms.toFixed(0)} ms`)
    .join("; ");
  console.log(
    `metrics: after ${label}: scrapes ${s}; slowest of ${reviews} reviews meanwhile ${slowest.toFixed(0)} ms; RSS ${rssMiB(pid).toFixed(0)} MiB`,
  );
}

async function main(): Promise<void> {
  const port = 22443;
  const metricsPort = 22444;
  const policies = join(repoRoot, "deploy", "components", "policy-set-pss-restricted", "policies");
  const server = await startServe(
    [],
    join(repoRoot, "bin", "bylaw.js"),
    [
      "--policies",
      policies,
      "--self-signed",
      "--dns-name",
      "localhost",
      "--host",
      "127.0.0.1",
      "--metrics-port",
      String(metricsPort),
      "--log-level",
      "silent",
    ],
    port,
  );
  const pid = server.child.pid ?? 0;
  try {
    const long = "n".repeat(100_000);
    await send(port, (i) => review(i, `${i}-${long}`), 50);
    await measure("50 reviews with a 100 KB namespace", port, metricsPort, pid);
    await send(port, (i) => review(i, `ns-${i}`), 10_000);
    await measure("10,000 namespaces", port, metricsPort, pid);
  } finally {
    agent.destroy();
    await server.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

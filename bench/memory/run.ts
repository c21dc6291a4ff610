/**
 * `npm run bench:memory`: peak resident memory of `bylaw serve` (the shipped pss-restricted set,
 * on loopback) under the hostile workloads of issue 14, against the memory limit of the shipped
 * Deployment. Each workload gets a fresh server and is bounded in count and time. The container
 * limit is passed as --memory-limit, and V8's heap is sized as Node sizes it inside a cgroup of
 * that limit (deployment-sizing.ts). Figures, never verdicts.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { selfSignedCertificate } from "../../src/server/tls/self-signed.js";
import { deploymentSizing } from "./deployment-sizing.js";
import { startServe } from "./serve-process.js";
import { bigUpdate, concurrentPosts, idleKeepAlive, pipelineNoRead, wrk } from "./workloads.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 10);
const MIB = 1024 * 1024;

async function main(): Promise<void> {
  const { limitMiB: limit, nodeArgs } = deploymentSizing(repoRoot);
  const work = mkdtempSync(join(tmpdir(), "bylaw-memory-bench-"));
  const tls = selfSignedCertificate({ dnsNames: ["localhost"], includeLoopback: true, now: new Date() });
  writeFileSync(join(work, "tls.crt"), tls.cert);
  writeFileSync(join(work, "tls.key"), tls.key);
  const policies = join(repoRoot, "deploy", "components", "policy-set-pss-restricted", "policies");
  const args = [
    "--policies",
    policies,
    "--tls-cert-file",
    join(work, "tls.crt"),
    "--tls-key-file",
    join(work, "tls.key"),
    "--host",
    "127.0.0.1",
    "--metrics-port",
    "off",
    "--log-level",
    "silent",
    "--memory-limit",
    `${limit}Mi`,
  ];
  const big = bigUpdate(6.4);
  console.log(
    `memory: node ${process.version}; limit ${limit} MiB (deploy/base/deployment.yaml); node ${nodeArgs.join(" ")}; ${SECONDS} s per workload; body of the big UPDATE ${(big.length / MIB).toFixed(1)} MiB`,
  );

  let port = 21443;
  const run = async (name: string, workload: (port: number) => Promise<string>): Promise<void> => {
    const server = await startServe(nodeArgs, join(repoRoot, "bin", "bylaw.js"), args, ++port);
    const idle = server.peak();
    let outcome: string;
    try {
      outcome = await workload(server.port);
    } catch (e) {
      outcome = `workload failed: ${e instanceof Error ? e.message : String(e)}`;
    }
    const peak = server.peak();
    const alive = server.child.exitCode === null;
    await server.stop();
    console.log(
      `memory: ${name}: peak RSS ${peak.toFixed(0)} MiB of ${limit} MiB (${((peak / limit) * 100).toFixed(0)}%; ${idle.toFixed(0)} MiB before)${alive ? "" : " — THE SERVER DIED"}; ${outcome}`,
    );
  };
  const statuses = (s: Record<string, number>): string =>
    Object.entries(s)
      .map(([k, v]) => `${v}× ${k}`)
      .join(", ");

  await run("idle", async () => {
    await new Promise((r) => setTimeout(r, 1000));
    return "no load";
  });
  await run("8 concurrent 6.4 MB UPDATEs", async (p) => statuses(await concurrentPosts(p, big, 8, SECONDS)));
  await run("16 concurrent 6.4 MB UPDATEs", async (p) => statuses(await concurrentPosts(p, big, 16, SECONDS)));
  await run("wrk -c1000 (Pod reviews)", (p) => wrk(p, 1000, SECONDS, join(work, "post.lua")));
  await run("2,000 idle keep-alive connections", (p) => idleKeepAlive(p, 2000, SECONDS));
  await run("200 pipelining clients that never read", (p) => pipelineNoRead(p, 200, 500, SECONDS));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

/**
 * `npm run bench:webhook`: `bylaw serve` under load on loopback HTTPS, against a bare HTTPS server
 * that only parses the AdmissionReview (the floor). Prints throughput at saturation (autocannon,
 * closed loop), p50/p99 at fixed rates (open loop, latency from when each request was due), server
 * CPU µs per review, and RSS with 17 and 300 policies; then the policy library as issue 39 measures it
 * (the corpus's ClusterPolicies, the cluster bench's set: reviews reach the policies the candidate
 * index leaves in; and the cluster bench's compliant Pod, which runs more of each policy), its RSS
 * also with the heap the shipped Deployment gives (deployment-sizing.ts), and the same controls
 * written in CEL (validate.cel ClusterPolicies, and ValidatingPolicies) against the same floor. The floor's and bylaw's saturation runs
 * alternate, so that a drift in this machine's speed touches both sides of each ratio. Figures, never verdicts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { selfSignedCertificate } from "../../src/server/tls/self-signed.js";
import { drive, peakRssMiB, rssMiB, type LoadResult } from "./load.js";
import { openLoop } from "./open-loop.js";
import { podReviewBodies, pssPolicyFiles, reviewBodies, writeEnforcePolicies } from "./workload.js";
import { restrictedPod } from "../cluster/policies.js";
import { writeCorpusPolicies } from "../cluster/corpus-policies.js";
import { deploymentSizing, type DeploymentSizing } from "../memory/deployment-sizing.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 8);

async function main(): Promise<void> {
  process.env["NODE_TLS_REJECT_UNAUTHORIZED"] = "0";
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  if (!existsSync(join(corpus, "pod-security"))) {
    console.log(`webhook: corpus not found at ${corpus}; skipped`);
    return;
  }
  const work = mkdtempSync(join(tmpdir(), "bylaw-bench-"));
  const tls = selfSignedCertificate({ dnsNames: ["localhost"], includeLoopback: true, now: new Date() });
  writeFileSync(join(work, "tls.crt"), tls.cert);
  writeFileSync(join(work, "tls.key"), tls.key);
  const files = pssPolicyFiles(corpus);
  const n17 = writeEnforcePolicies(files, join(work, "p17"), 17);
  const n300 = writeEnforcePolicies(files, join(work, "p300"), 300);
  const bodies = reviewBodies(64);
  console.log(
    `webhook: node ${process.version}; ${SECONDS} s per run; ${bodies.length} distinct reviews (1 in 4 fails); TLS on 127.0.0.1`,
  );

  const serve = (dir: string, port: number, sizing?: DeploymentSizing): Promise<ChildProcess> =>
    start(
      [
        ...(sizing?.nodeArgs ?? []),
        join(repoRoot, "bin", "bylaw.js"),
        "serve",
        "--policies",
        dir,
        "--tls-cert-file",
        join(work, "tls.crt"),
        "--tls-key-file",
        join(work, "tls.key"),
        "--host",
        "127.0.0.1",
        "--port",
        String(port),
        "--metrics-port",
        String(port + 1),
        "--log-level",
        "silent",
        ...(sizing !== undefined ? ["--memory-limit", `${sizing.limitMiB}Mi`] : []),
      ],
      port,
      "/health/readiness",
    );
  // The floor: a bare HTTPS server that only parses the review, started afresh beside each bylaw.
  const startBare = (): Promise<ChildProcess> =>
    start(
      [
        join(repoRoot, "dist", "bench", "webhook", "bare-server.js"),
        join(work, "tls.crt"),
        join(work, "tls.key"),
        "18443",
      ],
      18443,
      "/",
    );
  const bare = await startBare();
  const s17 = await serve(join(work, "p17"), 19443);
  const idle17 = rssMiB(s17.pid ?? 0);
  const floorTarget: Target = { label: "bare https floor", url: "https://127.0.0.1:18443/validate/fail", child: bare };
  const bylawTarget: Target = {
    label: `bylaw serve, ${n17} PSS policies (Enforce)`,
    url: "https://127.0.0.1:19443/validate/fail",
    child: s17,
  };
  const [floor, with17] = await saturationPairs(floorTarget, bylawTarget, bodies);
  await fixedRates(floorTarget, bodies);
  await fixedRates(bylawTarget, bodies);
  const rss17 = rssMiB(s17.pid ?? 0);
  const peak17 = peakRssMiB(s17.pid ?? 0);
  await stop(bare);
  await stop(s17);

  const s300 = await serve(join(work, "p300"), 20443);
  const idle300 = rssMiB(s300.pid ?? 0);
  const sat300 = await drive("https://127.0.0.1:20443/validate/fail", bodies, s300.pid ?? 0, {
    seconds: SECONDS,
    connections: 16,
  });
  const rss300 = rssMiB(s300.pid ?? 0);
  const peak300 = peakRssMiB(s300.pid ?? 0);
  await stop(s300);
  console.log(
    `webhook: bylaw serve, ${n300} policies: ${sat300.perSecond.toFixed(0)} reviews/s at saturation, ${sat300.cpuMicrosPerRequest.toFixed(0)} CPU µs per review`,
  );
  console.log(
    `webhook: RSS: ${n17} policies ${idle17.toFixed(0)} MiB idle / ${rss17.toFixed(0)} MiB after load / ${peak17.toFixed(0)} MiB peak; ` +
      `${n300} policies ${idle300.toFixed(0)} MiB idle / ${rss300.toFixed(0)} MiB after load / ${peak300.toFixed(0)} MiB peak`,
  );
  printRatio(`${n17} PSS policies`, with17, floor);

  // The policy library: every ClusterPolicy of the corpus the cluster bench loads, against the floor again.
  const library = writeCorpusPolicies(corpus, join(work, "library"), "cluster-policies");
  const nLibrary = [...library.written.values()].reduce((a, b) => a + b, 0);
  const bareLibrary = await startBare();
  const sLibrary = await serve(join(work, "library"), 22443);
  const idleLibrary = rssMiB(sLibrary.pid ?? 0);
  const [floorLibrary, withLibrary] = await saturationPairs(
    { ...floorTarget, child: bareLibrary },
    {
      label: `bylaw serve, the corpus's ${nLibrary} ClusterPolicies`,
      url: "https://127.0.0.1:22443/validate/fail",
      child: sLibrary,
    },
    bodies,
  );
  // The same servers with the cluster bench's Pod (policies.ts restrictedPod: labels, probes,
  // resources, a full securityContext), which passes nearly every policy of the library, so more of
  // each policy runs than for the mix above.
  const compliantBodies = podReviewBodies(64, (i) => restrictedPod(`p-${i}`, "node-0"));
  const [floorCompliant, withCompliant] = await saturationPairs(
    { ...floorTarget, child: bareLibrary },
    {
      label: `bylaw serve, the corpus's ${nLibrary} ClusterPolicies, the cluster bench's compliant Pod`,
      url: "https://127.0.0.1:22443/validate/fail",
      child: sLibrary,
    },
    compliantBodies,
  );
  const peakLibrary = peakRssMiB(sLibrary.pid ?? 0);
  await stop(bareLibrary);
  await stop(sLibrary);
  printRatio(`the corpus's ${nLibrary} ClusterPolicies`, withLibrary, floorLibrary);
  printRatio(
    `the corpus's ${nLibrary} ClusterPolicies, the cluster bench's compliant Pod`,
    withCompliant,
    floorCompliant,
  );
  console.log(
    `webhook: RSS: the corpus's ${nLibrary} ClusterPolicies ${idleLibrary.toFixed(0)} MiB idle / ${peakLibrary.toFixed(0)} MiB peak`,
  );
  // The same load on the heap the shipped Deployment gives: Node sizes V8 from the container's
  // memory limit, where on this machine it sizes it from all its memory and lets the heap grow.
  const sizing = deploymentSizing(repoRoot);
  const sDeployed = await serve(join(work, "library"), 22543, sizing);
  const idleDeployed = rssMiB(sDeployed.pid ?? 0);
  const deployedUrl = "https://127.0.0.1:22543/validate/fail";
  await drive(deployedUrl, bodies, sDeployed.pid ?? 0, { seconds: 2, connections: 8 });
  const deployedRuns: LoadResult[] = [];
  for (let i = 0; i < 3; i++) {
    deployedRuns.push(await drive(deployedUrl, bodies, sDeployed.pid ?? 0, { seconds: SECONDS, connections: 16 }));
  }
  // Then the compliant Pod, as the server above had it.
  await drive(deployedUrl, compliantBodies, sDeployed.pid ?? 0, { seconds: 2, connections: 8 });
  for (let i = 0; i < 3; i++) {
    deployedRuns.push(
      await drive(deployedUrl, compliantBodies, sDeployed.pid ?? 0, { seconds: SECONDS, connections: 16 }),
    );
  }
  const peakDeployed = peakRssMiB(sDeployed.pid ?? 0);
  await stop(sDeployed);
  console.log(
    `webhook: RSS as deployed (node ${sizing.nodeArgs.join(" ")} --memory-limit ${sizing.limitMiB}Mi: V8 sized as Node sizes it in the Deployment's cgroup): ` +
      `the corpus's ${nLibrary} ClusterPolicies ${idleDeployed.toFixed(0)} MiB idle / ${peakDeployed.toFixed(0)} MiB peak ` +
      `(the same load; the mix: ${median(deployedRuns.slice(0, 3).map((r) => r.perSecond)).toFixed(0)} reviews/s, ${median(deployedRuns.slice(0, 3).map((r) => r.cpuMicrosPerRequest)).toFixed(0)} CPU µs per review; ` +
      `the compliant Pod: ${median(deployedRuns.slice(3).map((r) => r.perSecond)).toFixed(0)} reviews/s; ` +
      `${deployedRuns.reduce((n, r) => n + r.non2xx + r.errors, 0)} non-2xx or failed)`,
  );

  // The same controls in CEL, each against the floor again (alternating pairs, as above).
  for (const [folder, what] of [
    ["pod-security-cel", "validate.cel ClusterPolicies"],
    ["pod-security-vpol", "ValidatingPolicies"],
  ] as const) {
    const n = writeEnforcePolicies(pssPolicyFiles(corpus, folder), join(work, folder), 17);
    const bareAgain = await startBare();
    const cel = await serve(join(work, folder), 21443);
    const [floorCel, withCel] = await saturationPairs(
      { ...floorTarget, child: bareAgain },
      {
        label: `bylaw serve, ${n} PSS ${what} (Enforce/Deny)`,
        url: "https://127.0.0.1:21443/validate/fail",
        child: cel,
      },
      bodies,
    );
    printRatio(`${n} PSS ${what}`, withCel, floorCel);
    await stop(bareAgain);
    await stop(cel);
  }
}

function printRatio(what: string, runs: readonly LoadResult[], floor: readonly LoadResult[]): void {
  const ratio = (f: (r: LoadResult) => number): string =>
    median(runs.map((r, i) => f(r) / f(floor[i] as LoadResult))).toFixed(2);
  console.log(
    `webhook: ratio bylaw (${what}) / floor, median of 3 alternating pairs: throughput ${ratio((r) => r.perSecond)}×, CPU per review ${ratio((r) => r.cpuMicrosPerRequest)}×`,
  );
}

interface Target {
  readonly label: string;
  readonly url: string;
  readonly child: ChildProcess;
}

/** After a warm-up of each, three saturation runs per target, alternating; each target's runs in order. */
async function saturationPairs(a: Target, b: Target, bodies: readonly string[]): Promise<[LoadResult[], LoadResult[]]> {
  for (const t of [a, b]) await drive(t.url, bodies, t.child.pid ?? 0, { seconds: 2, connections: 8 });
  const ra: LoadResult[] = [];
  const rb: LoadResult[] = [];
  for (let i = 0; i < 3; i++) {
    ra.push(await drive(a.url, bodies, a.child.pid ?? 0, { seconds: SECONDS, connections: 16 }));
    rb.push(await drive(b.url, bodies, b.child.pid ?? 0, { seconds: SECONDS, connections: 16 }));
  }
  report(a.label, ra);
  report(b.label, rb);
  return [ra, rb];
}

/** The median-throughput run's figures, the range, and the median CPU per review. */
function report(label: string, runs: readonly LoadResult[]): void {
  const sorted = [...runs].sort((x, y) => x.perSecond - y.perSecond);
  const sat = sorted[1] as LoadResult;
  const range = `${(sorted[0] as LoadResult).perSecond.toFixed(0)}–${(sorted[2] as LoadResult).perSecond.toFixed(0)}`;
  console.log(
    `webhook: ${label}: saturation ${sat.perSecond.toFixed(0)} reviews/s (median of 3, range ${range}; p50 ${sat.p50} ms, p99 ${sat.p99} ms), ` +
      `${median(runs.map((r) => r.cpuMicrosPerRequest)).toFixed(0)} CPU µs per review (median), ${sat.non2xx} non-2xx, ${sat.errors} errors`,
  );
}

async function fixedRates(t: Target, bodies: readonly string[]): Promise<void> {
  for (const rate of [500, 2000]) {
    const r = await openLoop(t.url, bodies, t.child.pid ?? 0, { seconds: SECONDS, connections: 32, rate });
    console.log(
      `webhook: ${t.label}: at ${rate} req/s (open loop): p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms (${r.perSecond.toFixed(0)} req/s achieved, ${r.errors + r.non2xx} failed, ${r.cpuMicrosPerRequest.toFixed(0)} CPU µs per review)`,
    );
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function start(args: string[], port: number, path: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] });
  for (let i = 0; i < 200; i++) {
    if (await ready(port, path)) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`server on port ${port} did not become ready`);
}

function ready(port: number, path: string): Promise<boolean> {
  return new Promise((res) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET", rejectUnauthorized: false }, (r) => {
      r.resume();
      res(r.statusCode === 200);
    });
    req.on("error", () => res(false));
    req.end();
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((res) => {
    child.once("exit", () => res());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 5000).unref();
  });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

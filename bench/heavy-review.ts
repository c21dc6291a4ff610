/**
 * One heavy review against `bylaw serve` (a child process, loopback HTTPS) with the shipped
 * policies/pss-restricted: a 100k-container, 3 MB Pod. Prints how long it takes to be answered, the
 * latency of clean Pods sent while it runs, and of liveness probes every 50 ms meanwhile; and the
 * Pod Security restricted check alone on 1k/10k/100k failing containers in-process (linear).
 * Figures, never verdicts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createEngine, type JsonObject } from "../src/engine/index.js";
import { cryptoRandom, nodeHasher, systemClock } from "../src/platform/node-ports.js";
import { offlineContextSources, offlineHosts } from "../src/platform/offline-context.js";
import { selfSignedCertificate } from "../src/server/tls/self-signed.js";

const PORT = 21443;

function podReview(uid: string, containers: readonly JsonObject[], extra: JsonObject = {}): string {
  const object = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: uid, namespace: "shop" },
    spec: { ...extra, containers },
  };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      operation: "CREATE",
      namespace: "shop",
      name: uid,
      userInfo: { username: "dev", groups: [] },
      object,
    },
  });
}

const manyContainers = (n: number): JsonObject[] =>
  Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: "nginx:1.27" }));
const cleanBody = podReview(
  "clean",
  [
    {
      name: "app",
      image: "nginx:1.27",
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
    },
  ],
  {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
  },
);

export async function benchHeavyReview(repoRoot: string): Promise<void> {
  benchPssLinear();
  const work = mkdtempSync(join(tmpdir(), "bylaw-heavy-"));
  const tls = selfSignedCertificate({ dnsNames: ["localhost"], includeLoopback: true, now: new Date() });
  writeFileSync(join(work, "tls.crt"), tls.cert);
  writeFileSync(join(work, "tls.key"), tls.key);
  const agent = new Agent({ keepAlive: true, maxSockets: 8, rejectUnauthorized: false });
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, "bin", "bylaw.js"),
      "serve",
      "--policies",
      join(repoRoot, "policies", "pss-restricted"),
      "--tls-cert-file",
      join(work, "tls.crt"),
      "--tls-key-file",
      join(work, "tls.key"),
      "--host",
      "127.0.0.1",
      "--port",
      String(PORT),
      "--metrics-port",
      "off",
      "--log-level",
      "silent",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  try {
    await waitReady(agent);
    for (let i = 0; i < 20; i++) await send(agent, "POST", "/validate/fail", cleanBody);
    const heavyBody = podReview("heavy", manyContainers(100_000));
    const t0 = performance.now();
    let done = false;
    const heavy = send(agent, "POST", "/validate/fail", heavyBody).then(() => {
      done = true;
      return (performance.now() - t0) / 1000;
    });
    const live: number[] = [];
    const clean: number[] = [];
    while (!done) {
      const l0 = performance.now();
      await send(agent, "GET", "/health/liveness");
      live.push(performance.now() - l0);
      const c0 = performance.now();
      await send(agent, "POST", "/validate/fail", cleanBody);
      clean.push(performance.now() - c0);
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = await heavy;
    console.log(
      `heavy review: a ${(heavyBody.length / 1e6).toFixed(1)} MB, 100k-container Pod against policies/pss-restricted answered in ${seconds.toFixed(2)} s; ` +
        `meanwhile ${clean.length} clean Pods: max ${Math.max(...clean).toFixed(0)} ms, median ${median(clean).toFixed(0)} ms; liveness max ${Math.max(...live).toFixed(0)} ms`,
    );
  } finally {
    agent.destroy();
    child.kill("SIGTERM");
  }
}

/** The restricted Pod Security rule on pods of failing containers, in-process: time per container. */
function benchPssLinear(): void {
  const engine = createEngine({
    clock: systemClock,
    random: cryptoRandom,
    hasher: nodeHasher,
    context: offlineContextSources({}),
    hosts: offlineHosts,
  });
  const compiled = engine.compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "restricted" },
    spec: {
      rules: [
        {
          name: "restricted",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { podSecurity: { level: "restricted", version: "latest" } },
        },
      ],
    },
  });
  if (!compiled.ok) throw new Error("the restricted rule did not compile");
  const figures = [1_000, 10_000, 100_000].map((n) => {
    const resource = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "shop" },
      spec: { containers: manyContainers(n) },
    };
    const t0 = performance.now();
    engine.validate(compiled.policy, { resource, operation: "CREATE", namespaceLabels: {} });
    const ms = performance.now() - t0;
    return `${n}: ${ms.toFixed(0)} ms (${((ms * 1000) / n).toFixed(1)} µs/container)`;
  });
  console.log(`pss restricted, failing containers, in-process: ${figures.join(", ")}`);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function waitReady(agent: Agent): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await send(agent, "GET", "/health/readiness")) === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("bylaw serve did not become ready");
}

function send(agent: Agent, method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: PORT,
        path,
        method,
        agent,
        headers:
          body !== undefined ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {},
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

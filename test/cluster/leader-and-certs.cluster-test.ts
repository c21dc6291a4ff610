/**
 * Issue 22 §5 (Lease, certificate Secret, rotation), end to end (`npm run test:cluster`): three
 * `bylaw serve --leader-elect --tls-secret bylaw/bylaw-tls` processes against the real API server,
 * each authenticated as the `bylaw` ServiceAccount with exactly the grants of
 * deploy/base/rbac/admission-controller.yaml (and the empty Secret deploy/base ships):
 * - exactly one holds the Lease (the Lease's holder, and the only bylaw_leader 1);
 * - the leader fills the Secret; every replica becomes ready and presents the Secret's certificate;
 * - a CA rotation (`kubectl annotate secret bylaw-tls bylaw.dev/rotate-ca=…`) reaches every replica
 *   while a client keeps sending reviews to all of them, trusting the Secret's ca.crt as it changes
 *   (as the API server trusts the registered caBundle): not one review fails;
 * - deleting the Lease leaves exactly one leader; killing the leader (SIGKILL, no release) hands
 *   leadership over within the lease duration; stopping one (SIGTERM) releases the Lease at once.
 * Runs alone in `npm run test:cluster` (test/cluster/run.ts): it bounds how long a Lease takes to change hands.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpGet } from "node:http";
import { request } from "node:https";
import type { TLSSocket } from "node:tls";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  eventually,
  startCluster,
  stopCluster,
  type Cluster,
  kubectlOk as kubectlIn,
  started,
} from "./cluster-harness.js";
import { createReview, startServe, type ServeProcess } from "./serve-process.js";
import { repoRoot } from "../deploy/render.js";
import { policyFixture } from "../support/policy-fixtures.js";

const buildTimeoutMs = 90 * 60_000;
const LEASE_MS = 15_000;
let cluster: Cluster | undefined;
let policyDir = "";
const replicas: ServeProcess[] = [];
/** The Secret's ca.crt as the test client last read it (PEM). */
let trusted = "";

const current = (): Cluster => started(cluster);
const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);

const POLICY = policyFixture("require-team");

async function secretData(): Promise<Record<string, string>> {
  const out = await kubectlOk(["-n", "bylaw", "get", "secret", "bylaw-tls", "-o", "jsonpath={.data}"]);
  const data = (out === "" ? {} : JSON.parse(out)) as Record<string, string>;
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]));
}

async function leaseHolder(): Promise<string | undefined> {
  const r = await current().kubectl([
    "-n",
    "bylaw",
    "get",
    "lease",
    "bylaw-admission",
    "-o",
    "jsonpath={.spec.holderIdentity}",
  ]);
  return r.code === 0 ? r.stdout : undefined;
}

function metricsPort(p: ServeProcess): number {
  const m = /metrics on :(\d+)/.exec(p.output());
  if (m === null) throw new Error(`no metrics port in the output:\n${p.output()}`);
  return Number(m[1]);
}

async function leaderGauge(p: ServeProcess): Promise<number> {
  const text = await new Promise<string>((done, fail) => {
    const req = httpGet({ host: "127.0.0.1", port: metricsPort(p), path: "/metrics" }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => done(body));
    });
    req.on("error", fail);
    req.end();
  });
  const m = /^bylaw_leader (\d)/m.exec(text);
  if (m === null) throw new Error("no bylaw_leader gauge in /metrics");
  return Number(m[1]);
}

/** The replicas that say they lead (bylaw_leader 1), among the running ones. */
async function leaders(running: readonly ServeProcess[]): Promise<ServeProcess[]> {
  const gauges = await Promise.all(running.map(leaderGauge));
  return running.filter((_, i) => gauges[i] === 1);
}

/** One review over a fresh connection, trusting `trusted`; the answer and the certificate the replica presented. */
function review(p: ServeProcess, body: unknown): Promise<{ allowed: boolean; fingerprint: string }> {
  return new Promise((done, fail) => {
    const text = JSON.stringify(body);
    const req = request(
      {
        host: "127.0.0.1",
        port: p.port,
        path: "/validate/fail",
        method: "POST",
        ca: trusted,
        servername: "localhost",
        agent: false,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        const fingerprint = (res.socket as TLSSocket).getPeerX509Certificate()?.fingerprint256 ?? "";
        let answer = "";
        res.on("data", (c: Buffer) => (answer += c.toString()));
        res.on("end", () => {
          if (res.statusCode !== 200) return fail(new Error(`status ${res.statusCode}: ${answer}`));
          done({
            allowed: (JSON.parse(answer) as { response?: { allowed?: boolean } }).response?.allowed === true,
            fingerprint,
          });
        });
      },
    );
    req.setTimeout(5_000, () => req.destroy(new Error("no answer within 5 s")));
    req.on("error", fail);
    req.end(text);
  });
}

const labelled = createReview({
  kind: "Pod",
  metadata: { name: "web", namespace: "shop", labels: { team: "a" } },
  spec: { containers: [{ name: "c", image: "registry.invalid/app:1" }] },
});

async function startReplica(kubeconfig: string): Promise<ServeProcess> {
  const p = await startServe(
    [
      "--policies",
      policyDir,
      "--kubeconfig",
      kubeconfig,
      "--leader-elect",
      "--leader-elect-namespace",
      "bylaw",
      "--tls-secret",
      "bylaw/bylaw-tls",
      "--dns-name",
      "localhost",
      "--dns-name",
      "127.0.0.1",
      "--tls-ca-overlap",
      "5s",
      "--metrics-port",
      "0",
    ],
    { ownTls: true, trust: () => trusted },
  );
  replicas.push(p);
  return p;
}

describe(
  "leader election and the shared certificate Secret against a real API server",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    let saKubeconfig = "";

    before(
      async () => {
        cluster = await startCluster(buildTimeoutMs);
        console.log(`# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s`);
        const base = join(repoRoot(), "deploy", "base");
        await kubectlOk(["apply", "-f", join(base, "namespace.yaml")]);
        for (const file of ["serviceaccount.yaml", join("rbac", "admission-controller.yaml"), "secret.yaml"])
          await kubectlOk(["apply", "-n", "bylaw", "-f", join(base, file)]);
        // Bylaw's own requests as its ServiceAccount: only the grants deploy/ ships.
        const dir = current().dir;
        writeFileSync(
          join(dir, "bylaw.token"),
          (await kubectlOk(["create", "token", "bylaw", "-n", "bylaw", "--duration=2h"])).trim(),
        );
        const admin = readFileSync(current().kubeconfig, "utf8");
        const server = /server: (\S+)/.exec(admin)?.[1] ?? "";
        const ca = /certificate-authority-data: (\S+)/.exec(admin)?.[1] ?? "";
        saKubeconfig = join(dir, "bylaw.kubeconfig");
        writeFileSync(
          saKubeconfig,
          `apiVersion: v1\nkind: Config\ncurrent-context: b\ncontexts: [{name: b, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: "${server}", certificate-authority-data: ${ca}}}]\nusers: [{name: u, user: {tokenFile: bylaw.token}}]\n`,
        );
        policyDir = mkdtempSync(join(tmpdir(), "bylaw-ha-policies-"));
        writeFileSync(join(policyDir, "require-team.yaml"), POLICY);
        for (let i = 0; i < 3; i++) await startReplica(resolve(saKubeconfig));
      },
      { timeout: buildTimeoutMs + 180_000 },
    );

    after(async () => {
      for (const p of replicas) await p.stop();
      if (policyDir !== "") rmSync(policyDir, { recursive: true, force: true });
      if (cluster === undefined) return;
      const down = await stopCluster(cluster.dir);
      assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
      rmSync(cluster.dir, { recursive: true, force: true });
    });

    test("exactly one replica holds the Lease, and only it says so in bylaw_leader", async () => {
      const holder = await eventually("a Lease holder", LEASE_MS * 2, async () => (await leaseHolder()) || undefined);
      const leading = await eventually("one leader by the gauges", 10_000, async () => {
        const l = await leaders(replicas);
        return l.length === 1 ? l : undefined;
      });
      assert.match(
        leading[0]?.output() ?? "",
        new RegExp(holder.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")),
        "the leader's log names the identity the Lease holds",
      );
    });

    test("the leader fills the Secret; every replica becomes ready and presents its certificate", async () => {
      const data = await eventually("the Secret filled", 30_000, async () => {
        const d = await secretData();
        return d["tls.crt"] !== undefined && d["ca.crt"] !== undefined && d["ca.key"] !== undefined ? d : undefined;
      });
      trusted = data["ca.crt"] ?? "";
      const want = new X509Certificate(data["tls.crt"] ?? "").fingerprint256;
      for (const p of replicas) {
        await eventually("readiness", 30_000, async () =>
          (await p.get("/health/readiness")).status === 200 ? true : undefined,
        );
        const r = await eventually("the Secret's certificate presented", 30_000, async () => {
          const answer = await review(p, labelled);
          return answer.fingerprint === want ? answer : undefined;
        });
        assert.equal(r.allowed, true);
      }
      // The grants are exactly what it needs: the ServiceAccount may not create or read other Secrets.
      const can = (
        await current().kubectl([
          "auth",
          "can-i",
          "get",
          "secret/other",
          "-n",
          "bylaw",
          "--as",
          "system:serviceaccount:bylaw:bylaw",
        ])
      ).stdout.trim();
      assert.equal(can, "no");
    });

    test("a CA rotation reaches every replica with no failed review", async () => {
      const before = await secretData();
      const failures: string[] = [];
      let sent = 0;
      let stop = false;
      /** What the Secret held at each poll: how many CAs, and whether the serving certificate was still the old one. */
      const states: { cas: number; oldLeaf: boolean }[] = [];
      const pollTrust = (async () => {
        while (!stop) {
          const d = await secretData().catch(() => undefined);
          if (d?.["ca.crt"] !== undefined) trusted = d["ca.crt"];
          if (d !== undefined)
            states.push({
              cas: d["ca.crt"]?.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0,
              oldLeaf: d["tls.crt"] === before["tls.crt"],
            });
          await new Promise((r) => setTimeout(r, 300));
        }
      })();
      const seen = new Map<ServeProcess, string>();
      const client = (async () => {
        while (!stop) {
          await Promise.all(
            replicas.map(async (p) => {
              try {
                const r = await review(p, labelled);
                sent++;
                seen.set(p, r.fingerprint);
                if (!r.allowed) failures.push(`replica :${p.port} denied a labelled Pod`);
              } catch (e) {
                failures.push(`replica :${p.port}: ${(e as Error).message}`);
              }
            }),
          );
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      try {
        await new Promise((r) => setTimeout(r, 1_000));
        await kubectlOk(["-n", "bylaw", "annotate", "secret", "bylaw-tls", `bylaw.dev/rotate-ca=${Date.now()}`]);
        const rotated = await eventually("the serving certificate reissued by a new CA", 60_000, async () => {
          const d = await secretData();
          const cas = (d["ca.crt"] ?? "").match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;
          return cas === 2 && d["tls.crt"] !== before["tls.crt"] ? d : undefined;
        });
        const want = new X509Certificate(rotated["tls.crt"] ?? "").fingerprint256;
        await eventually("every replica presenting the new certificate", 30_000, async () =>
          replicas.every((p) => seen.get(p) === want) ? true : undefined,
        );
        const newCa = new X509Certificate((rotated["ca.crt"] ?? "").split(/(?<=-----END CERTIFICATE-----\n)/)[0] ?? "");
        assert.ok(new X509Certificate(rotated["tls.crt"] ?? "").checkIssued(newCa), "the new leaf is the new CA's");
        assert.notEqual(newCa.fingerprint256, new X509Certificate(before["ca.crt"] ?? "").fingerprint256);
      } finally {
        stop = true;
        await Promise.all([client, pollTrust]);
      }
      console.log(`# ${sent} reviews across the rotation, ${failures.length} failed`);
      assert.ok(
        states.some((x) => x.cas === 2 && x.oldLeaf),
        "during the overlap the Secret held both CAs and the old serving certificate",
      );
      assert.ok(sent > 30, `reviews kept flowing (${sent})`);
      assert.deepEqual(failures, []);
    });

    test("deleting the Lease leaves exactly one leader; a killed leader is replaced within the lease duration; a stopped one releases at once", async () => {
      await kubectlOk(["-n", "bylaw", "delete", "lease", "bylaw-admission"]);
      const afterDelete = await eventually("a leader after the Lease was deleted", LEASE_MS + 5_000, async () => {
        const holder = await leaseHolder();
        const l = await leaders(replicas);
        return holder !== undefined && holder !== "" && l.length === 1 ? l[0] : undefined;
      });
      const old = afterDelete;
      const t0 = performance.now();
      await old.kill("SIGKILL");
      const alive = replicas.filter((p) => p !== old);
      const next = await eventually("another leader after SIGKILL", LEASE_MS + 10_000, async () => {
        const l = await leaders(alive);
        return l.length === 1 ? l[0] : undefined;
      });
      const handover = performance.now() - t0;
      console.log(`# leadership handed over ${(handover / 1000).toFixed(1)} s after the leader was killed`);
      assert.ok(handover < LEASE_MS + 2 * 2_000 + 2_000, `handover took ${handover} ms`);
      replicas.splice(replicas.indexOf(old), 1);

      const t1 = performance.now();
      assert.equal(await next.stop(), 0);
      replicas.splice(replicas.indexOf(next), 1);
      const last = replicas[0] as ServeProcess;
      await eventually("the last replica leading", LEASE_MS, async () =>
        (await leaderGauge(last)) === 1 ? true : undefined,
      );
      const released = performance.now() - t1;
      console.log(`# after a SIGTERM the next replica led ${(released / 1000).toFixed(1)} s later`);
      assert.ok(released < LEASE_MS / 2, `a released Lease is taken without waiting out the lease (${released} ms)`);
    });
  },
);

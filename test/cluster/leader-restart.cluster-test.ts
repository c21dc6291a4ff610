/**
 * Issue 32 (hostile tenants, the smaller items), end to end on the real control plane with Bylaw as
 * deploy/ runs it (`up --with-bylaw`: --cluster --register --leader-elect):
 * - after a crash (SIGKILL: the Lease is not released, the new process waits it out), the restarted
 *   Bylaw puts back an edited webhook configuration and a policy's cleared status as soon as it
 *   leads, well before the 60 s resync;
 * - with the API server frozen (SIGSTOP), the leader stops leading within its lease duration, with a
 *   log line naming renewDeadline, and leads again once the API server answers (SIGCONT).
 * Runs alone in `npm run test:cluster` (test/cluster/run.ts): it bounds how long leadership takes to come back and to stop.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { policyFixture } from "../support/policy-fixtures.js";
import {
  eventually,
  kubectlOk,
  processRunning,
  readPids,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
const LEASE_MS = 15_000;
const RESYNC_MS = 60_000;
const CONFIGURATION = "bylaw-resource-validating-webhook-cfg";
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
const log = (): string => readFileSync(join(current().dir, "logs", "bylaw.log"), "utf8");
const count = (text: string, pattern: RegExp): number => text.split("\n").filter((l) => pattern.test(l)).length;

const POLICY = policyFixture("configmaps-audit");

async function policyReady(): Promise<string> {
  return ok([
    "get",
    "clusterpolicy",
    "configmaps-audit",
    "-o",
    "jsonpath={.status.conditions[?(@.type=='Ready')].status}",
  ]);
}

async function firstTimeout(): Promise<number> {
  return Number(
    await ok(["get", "validatingwebhookconfiguration", CONFIGURATION, "-o", "jsonpath={.webhooks[0].timeoutSeconds}"]),
  );
}

describe("Bylaw after a crash and under a frozen API server", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
    await ok(["apply", "-f", "-"], POLICY);
    await eventually("the policy's status Ready", 60_000, async () =>
      (await policyReady()) === "True" ? true : undefined,
    );
    await eventually("the policy's webhook registered", 60_000, async () =>
      (await firstTimeout()) > 0 ? true : undefined,
    );
  });

  after(async () => {
    const apiserver = cluster?.pids.get("kube-apiserver");
    if (apiserver !== undefined && processRunning(apiserver)) process.kill(apiserver, "SIGCONT");
    await tearDown(cluster);
  });

  test("a restarted Bylaw restores an edited webhook configuration and a cleared status well before the resync", async () => {
    const registered = await firstTimeout();
    const bylaw = readPids(current().dir).get("bylaw");
    assert.ok(bylaw !== undefined, "Bylaw's pid");
    process.kill(bylaw, "SIGKILL");
    await eventually("Bylaw to exit", 10_000, () => Promise.resolve(processRunning(bylaw) ? undefined : true));
    // While it is down: a configuration edited by hand, and a policy whose status is gone.
    await ok([
      "patch",
      "validatingwebhookconfiguration",
      CONFIGURATION,
      "--type=json",
      "-p",
      JSON.stringify([{ op: "replace", path: "/webhooks/0/timeoutSeconds", value: registered === 7 ? 8 : 7 }]),
    ]);
    await ok([
      "patch",
      "clusterpolicy",
      "configmaps-audit",
      "--subresource=status",
      "--type=merge",
      "-p",
      '{"status":null}',
    ]);
    assert.notEqual(await policyReady(), "True");
    const restarted = performance.now();
    await restartBylaw(current());
    // The new process waits out the dead one's Lease (15 s), then writes at once.
    const bound = RESYNC_MS - 15_000;
    const left = (): number => Math.max(1_000, bound - (performance.now() - restarted));
    await eventually("the configuration as registered", left(), async () =>
      (await firstTimeout()) === registered ? true : undefined,
    );
    await eventually("the policy's status Ready", left(), async () =>
      (await policyReady()) === "True" ? true : undefined,
    );
    const took = performance.now() - restarted;
    console.log(`# restored ${(took / 1000).toFixed(1)} s after the restart began`);
    assert.ok(took < bound, `restored after ${took} ms`);
  });

  test("with the API server frozen, the leader stops leading within its lease duration, then leads again", async () => {
    const apiserver = current().pids.get("kube-apiserver");
    assert.ok(apiserver !== undefined, "the API server's pid");
    await eventually("Bylaw to lead", 2 * LEASE_MS, () =>
      Promise.resolve(count(log(), /became the leader/) > count(log(), /stopped leading/) ? true : undefined),
    );
    const before = { stopped: count(log(), /stopped leading/), became: count(log(), /became the leader/) };
    process.kill(apiserver, "SIGSTOP");
    const frozen = performance.now();
    try {
      await eventually("Bylaw to stop leading", LEASE_MS + 2_000, () =>
        Promise.resolve(count(log(), /stopped leading/) > before.stopped ? true : undefined),
      );
      const took = performance.now() - frozen;
      console.log(`# stopped leading ${(took / 1000).toFixed(1)} s after the API server froze`);
      assert.ok(took < LEASE_MS, `stopped leading after ${took} ms`);
      assert.match(
        log()
          .split("\n")
          .filter((l) => /stopped leading/.test(l))
          .at(-1) ?? "",
        /renewDeadline/,
      );
    } finally {
      process.kill(apiserver, "SIGCONT");
    }
    await eventually("Bylaw to lead again", 60_000, () =>
      Promise.resolve(count(log(), /became the leader/) > before.became ? true : undefined),
    );
  });
});

/**
 * Issue 32 §4, CEL values have no memory bound, end to end (`npm run test:cluster`) against
 * `scripts/cluster.sh up DIR --with-bylaw`. The user `tenant-a-admin` (kubectl --as) writes
 * NamespacedValidatingPolicies and a Policy with validate.cel whose CEL builds ever larger values
 * (list doubling, map building, string replace/join, bytes doubling, a comprehension blow-up, nested
 * variables) and dry-runs a ConfigMap that each applies to. Each review is denied with the size or
 * cost limit (a rule error), Bylaw's process is the same one throughout, and during each attack a
 * control review in tenant-b is answered correctly within 2 s.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  eventually,
  kubectlOk,
  processRunning,
  readPids,
  startCluster,
  started,
  tearDown,
  type Cluster,
  type RunResult,
} from "./cluster-harness.js";
import { TENANT_RBAC } from "./tenant-read-policies.js";
import { CEL_ATTACKS, CONTROL_POLICY, configMap } from "./hostile-cel-policies.js";

const buildTimeoutMs = 90 * 60_000;
const TENANT = ["--as", "tenant-a-admin"];
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
const asTenant = (args: readonly string[], input?: string): Promise<RunResult> =>
  current().kubectl([...TENANT, ...args], input);
const dryRun = (args: readonly string[], object: string): Promise<RunResult> =>
  current().kubectl([...args, "create", "--dry-run=server", "-f", "-"], object);

/** A control review in tenant-b: the forbidden ConfigMap is denied, the allowed one admitted; with its time. */
async function control(): Promise<{ ms: number; right: boolean }> {
  const started = Date.now();
  const [denied, allowed] = await Promise.all([
    dryRun([], configMap("control-no", "tenant-b", { control: "forbidden" })),
    dryRun([], configMap("control-yes", "tenant-b", { control: "fine" })),
  ]);
  const ms = Date.now() - started;
  const right =
    denied.code !== 0 && /the control denies forbidden ConfigMaps/.test(denied.stderr) && allowed.code === 0;
  return { ms, right };
}

/** Waits until the tenant's policy is in force: a dry-run it applies to is refused (the first attack). */
async function inForce(object: string): Promise<RunResult> {
  return eventually("the attack policy in force", 60_000, async () => {
    const r = await dryRun(TENANT, object);
    return r.code !== 0 ? r : undefined;
  });
}

describe("a tenant's CEL cannot exhaust Bylaw's memory", { timeout: buildTimeoutMs + 15 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
    for (const ns of ["tenant-a", "tenant-b"]) await ok(["create", "namespace", ns]);
    await ok(["apply", "-f", "-"], TENANT_RBAC);
    await ok(["apply", "-f", "-"], CONTROL_POLICY);
    await eventually("control policy enforced", 60_000, async () => ((await control()).right ? true : undefined));
  });

  after(async () => {
    await tearDown(cluster);
  });

  for (const attack of CEL_ATTACKS) {
    test(`${attack.name}: a rule error within the bounds; Bylaw keeps running and answers the control within 2 s`, async () => {
      const pid = readPids(current().dir).get("bylaw");
      assert.ok(pid !== undefined && processRunning(pid), "Bylaw runs");
      const applied = await asTenant(["apply", "-f", "-"], attack.policy);
      assert.equal(applied.code, 0, applied.stderr);
      const object = configMap(`attack-${attack.name}`, "tenant-a", { attack: attack.name });
      const first = await inForce(object);
      const attempts: Promise<RunResult>[] = [Promise.resolve(first)];
      const controls: { ms: number; right: boolean }[] = [];
      for (let i = 0; i < 3; i++) {
        attempts.push(dryRun(TENANT, object));
        controls.push(await control());
      }
      const results = await Promise.all(attempts);
      for (const r of results) {
        assert.notEqual(r.code, 0, `${attack.name} was admitted`);
        assert.match(r.stderr, /actual cost limit exceeded|running out of cost budget/, r.stderr);
      }
      controls.push(await control());
      for (const c of controls) {
        assert.ok(c.right, "the control review is answered correctly");
        assert.ok(c.ms < 2000, `the control review took ${c.ms} ms`);
      }
      assert.ok(processRunning(pid), "Bylaw is still running");
      assert.equal(readPids(current().dir).get("bylaw"), pid, "Bylaw was not restarted");
      await asTenant(["delete", "-f", "-"], attack.policy);
    });
  }
});

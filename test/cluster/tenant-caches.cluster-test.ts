/**
 * Issue 32 §5 (informer caches bounded at list time) and the cache/watch half of §10 (shared
 * budgets), end to end (`npm run test:cluster`) against `scripts/cluster.sh up DIR --with-bylaw`,
 * with Bylaw under the Deployment's 256 MiB (`--memory-limit 256Mi`, and a V8 heap of 192 MiB as
 * the container would leave it). The user `tenant-a-admin` (kubectl --as) attacks:
 * - 124 ConfigMaps of 900 KB in tenant-a, written while Bylaw runs and present when it starts again:
 *   the tenant's reads of them (configMap entry, apiCall list, CEL resource.Get/List) are rule
 *   errors naming the namespace's share, while the admin's ClusterPolicy reading kube-system
 *   (configMap and apiCall) keeps its answer;
 * - GlobalContextEntries read by the tenant (CEL resource.List and resource.Get, an apiCall list)
 *   before the admin's entry and policy exist: the admin's entry loads and serves;
 * - tenant policies naming 40 resource types (apiCall paths and CEL resource.List): an admin
 *   apiCall of a new type applied afterwards still works.
 * During each attack a control review in tenant-b is answered correctly within 2 s, and Bylaw's
 * process is the same one throughout (save the restart the test makes); its peak resident memory
 * (VmHWM) stays under the limit, the start-up list of the 110 MB included.
 *
 * The rules enforced, in the spirit of ../shared/spec/tenant-isolation.md's list:
 * - a tenant's objects take at most its namespace's share of the live-context cache memory; over
 *   it, reads of that namespace are rule errors naming the share, never a crash, never a partial
 *   answer, and reads of other namespaces are answered;
 * - no list or watch response is held past what is left of the cache budget, at start-up too;
 * - a tenant's policies start at most their namespace's share of watched resource types, and half
 *   of the types are kept for cluster-wide policies;
 * - no tenant read starts, shares or stops the cache Bylaw loads GlobalContextEntries from.
 * Runs alone in `npm run test:cluster` (test/cluster/run.ts): a control review must be answered within 2 s while the tenant attacks.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, restartBylaw } from "./cluster-harness.js";
import { configMap } from "./hostile-cel-policies.js";
import {
  ADMIN_GLOBALS,
  ADMIN_GLOBALS_POLICY,
  ADMIN_LATE_TYPE,
  ADMIN_READS,
  BIG_COUNT,
  bigConfigMaps,
  TENANT_READS_BIG,
  TENANT_READS_GLOBALS,
  tenantTypes,
} from "./tenant-cache-policies.js";
import { BUILD_TIMEOUT_MS, TENANT, tenantKit } from "./tenant-attack.js";

const SHARE = /need more than the live-context cache memory one namespace may take/;
/** The Deployment's memory limit the suite runs Bylaw under (--memory-limit 256Mi). */
const LIMIT_MIB = 256;
const kit = tenantKit();
const { current, ok, asTenant, dryRun, controlsHold, bylawPid, peakMiB } = kit;

/** A dry-run in `namespace` labelled check=`label`, denied with a message matching `expected` (waits for the policy). */
async function deniedWith(
  label: string,
  namespace: string,
  expected: RegExp,
  args: readonly string[] = [],
): Promise<string> {
  let last = "";
  const r = await eventually(`check=${label} in ${namespace} denied with ${String(expected)}`, 90_000, async () => {
    const d = await dryRun(args, configMap(`probe-${label}`, namespace, { check: label }));
    last = d.code === 0 ? "admitted" : d.stderr;
    return d.code !== 0 && expected.test(d.stderr) ? d : undefined;
  }).catch((e: unknown) => {
    throw new Error(
      `${e instanceof Error ? e.message : String(e)}; the last answer: ${last.slice(0, 1500)}; Bylaw's last warnings:\n${kit.recentWarnings()}`,
    );
  });
  return r.stderr;
}

async function tenantReadsAreShareErrors(): Promise<void> {
  const policy = await deniedWith("reads-big", "tenant-a", SHARE, TENANT);
  assert.doesNotMatch(policy, /tenant read \d|tenant listed \d/, "no read of the tenant's namespace was answered");
  const cel = await deniedWith("reads-big-cel", "tenant-a", SHARE, TENANT);
  assert.doesNotMatch(cel, /tenant CEL read the big ConfigMaps/);
}

describe(
  "a tenant cannot exhaust or take over Bylaw's live-context caches",
  { timeout: BUILD_TIMEOUT_MS + 20 * 60_000 },
  () => {
    before(async () => {
      // The Deployment's memory limit, as Bylaw would read it from its cgroup, and the heap it leaves.
      process.env["BYLAW_CLUSTER_BYLAW_ARGS"] = "--memory-limit 256Mi";
      process.env["NODE_OPTIONS"] = "--max-old-space-size=192";
      await kit.setUp({ extra: async () => void (await ok(["apply", "-f", "-"], ADMIN_READS)) });
      await deniedWith("admin", "tenant-b", /admin reads yes yes/);
    });

    after(async () => {
      await kit.tearDown();
    });

    test(`${BIG_COUNT} ConfigMaps of 900 KB written while Bylaw runs: the tenant's reads are errors naming its share; the admin's reads and the control hold`, async () => {
      const pid = bylawPid();
      const applied = await asTenant(["apply", "-f", "-"], TENANT_READS_BIG);
      assert.equal(applied.code, 0, applied.stderr);
      const created = await asTenant(["create", "-f", "-"], bigConfigMaps());
      assert.equal(created.code, 0, created.stderr.slice(0, 2000));
      await tenantReadsAreShareErrors();
      await deniedWith("admin", "tenant-b", /admin reads yes yes/);
      await controlsHold(pid);
      assert.ok(peakMiB(pid) < LIMIT_MIB, `Bylaw's peak resident memory ${peakMiB(pid).toFixed(0)} MiB`);
    });

    test("Bylaw started again with them present: Ready, the same answers, no crash, under the memory limit", async () => {
      await restartBylaw(current());
      const pid = bylawPid();
      await tenantReadsAreShareErrors();
      await deniedWith("admin", "tenant-b", /admin reads yes yes/);
      await controlsHold(pid);
      // Listing the tenant's 110 MB at start-up, in pages under the cache budget, stays under the limit.
      const peak = peakMiB(pid);
      console.log(`# peak resident memory after the restart: ${peak.toFixed(0)} MiB`);
      assert.ok(peak < LIMIT_MIB, `Bylaw's peak resident memory ${peak.toFixed(0)} MiB`);
    });

    test("tenant reads of GlobalContextEntries (CEL List and Get, an apiCall list) do not stop the admin's entry from loading", async () => {
      const pid = bylawPid();
      const applied = await asTenant(["apply", "-f", "-"], TENANT_READS_GLOBALS);
      assert.equal(applied.code, 0, applied.stderr);
      await deniedWith("reads-entries", "tenant-a", /tenant|entries|globalcontextentries/i, TENANT);
      await ok(["apply", "-f", "-"], ADMIN_GLOBALS);
      // Let the entry's event pass before the policy that reads it loads (as an admin would apply them).
      await new Promise((r) => setTimeout(r, 5000));
      await ok(["apply", "-f", "-"], ADMIN_GLOBALS_POLICY);
      await deniedWith("globals", "tenant-b", /admin global yes/);
      await controlsHold(pid);
      // The tenant's policies gone, the entry still serves.
      await asTenant(["delete", "-f", "-"], TENANT_READS_GLOBALS);
      await deniedWith("globals", "tenant-b", /admin global yes/);
    });

    test("tenant policies naming 40 resource types (apiCall paths, CEL resource.List): an admin apiCall of a new type applied afterwards works", async () => {
      const pid = bylawPid();
      const applied = await asTenant(["apply", "-f", "-"], tenantTypes(40));
      assert.equal(applied.code, 0, applied.stderr);
      await deniedWith("takes-types", "tenant-a", /takes-types|types/, TENANT);
      await deniedWith("takes-types-cel", "tenant-a", /takes-types-cel|types/, TENANT);
      await ok(["apply", "-f", "-"], ADMIN_LATE_TYPE);
      await deniedWith("types", "tenant-b", /admin sees \d+ cluster policies/);
      await controlsHold(pid);
    });
  },
);

/**
 * Issue 32 §4, CEL values have no memory bound, end to end (`npm run test:cluster`) against
 * `scripts/cluster.sh up DIR --with-bylaw`. The user `tenant-a-admin` (kubectl --as) writes
 * NamespacedValidatingPolicies and a Policy with validate.cel whose CEL builds ever larger values
 * (list doubling, map building, string replace/join, bytes doubling, a comprehension blow-up, nested
 * variables) and dry-runs a ConfigMap that each applies to. Each review is denied with the size or
 * cost limit (a rule error), Bylaw's process is the same one throughout, and during each attack a
 * control review in tenant-b is answered correctly within 2 s.
 * Runs alone in `npm run test:cluster` (test/cluster/run.ts): a control review must be answered within 2 s while the tenant attacks.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, type RunResult } from "./cluster-harness.js";
import { CEL_ATTACKS, configMap } from "./hostile-cel-policies.js";
import { BUILD_TIMEOUT_MS, TENANT, tenantKit, assertControls, type ControlAnswer } from "./tenant-attack.js";

const kit = tenantKit();
const { asTenant, dryRun, control } = kit;

/** Waits until the tenant's policy is in force: a dry-run it applies to is refused (the first attack). */
async function inForce(object: string): Promise<RunResult> {
  return eventually("the attack policy in force", 60_000, async () => {
    const r = await dryRun(TENANT, object);
    return r.code !== 0 ? r : undefined;
  });
}

describe("a tenant's CEL cannot exhaust Bylaw's memory", { timeout: BUILD_TIMEOUT_MS + 15 * 60_000 }, () => {
  before(async () => {
    await kit.setUp();
  });

  after(async () => {
    await kit.tearDown();
  });

  for (const attack of CEL_ATTACKS) {
    test(`${attack.name}: a rule error within the bounds; Bylaw keeps running and answers the control within 2 s`, async () => {
      const pid = kit.bylawPid();
      const applied = await asTenant(["apply", "-f", "-"], attack.policy);
      assert.equal(applied.code, 0, applied.stderr);
      const object = configMap(`attack-${attack.name}`, "tenant-a", { attack: attack.name });
      const first = await inForce(object);
      const attempts: Promise<RunResult>[] = [Promise.resolve(first)];
      const controls: ControlAnswer[] = [];
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
      assertControls(controls);
      kit.sameProcess(pid);
      await asTenant(["delete", "-f", "-"], attack.policy);
    });
  }
});

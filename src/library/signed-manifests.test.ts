/** The library checks signed manifests with node:crypto's verifier, as the CLI does. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../engine/index.js";
import {
  deploymentManifest,
  keyAttestors,
  manifestsPolicy,
  signed,
  testKey,
} from "../../test/support/signed-manifests.js";
import { createBylaw } from "./create-bylaw.js";

describe("createBylaw: validate.manifests", () => {
  test("a signed Deployment passes, the same Deployment scaled after signing is blocked", () => {
    const team = testKey();
    const outcome = createBylaw({ policies: [manifestsPolicy({ attestors: keyAttestors([team]) })] });
    assert.ok(outcome.ok);
    const good = signed(deploymentManifest(1), [team]);
    assert.deepEqual(
      outcome.bylaw.check(good).results.map((r) => r.status),
      ["pass"],
    );
    const scaled = outcome.bylaw.check({ ...good, spec: { ...(good["spec"] as JsonObject), replicas: 3 } });
    assert.equal(scaled.blocked, true);
    assert.match(scaled.results[0]?.message ?? "", /"key":"spec.replicas"/);
  });
});

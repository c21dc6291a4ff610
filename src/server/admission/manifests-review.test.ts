/**
 * The validating webhook checks signed manifests with the same handler as the CLI (serve's ports
 * carry node:crypto's SignatureVerifier): a signed Deployment is admitted, a tampered one denied
 * with the changed field named, and a dry-run request is allowed as Kyverno allows it.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { nodeSignatures } from "../../platform/node-ports.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import {
  deploymentManifest,
  keyAttestors,
  manifestsPolicy,
  signed,
  testKey,
} from "../../../test/support/signed-manifests.js";
import { handleValidate } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const team = testKey();
const policy = manifestsPolicy({ attestors: keyAttestors([team]) });

function review(object: JsonObject, extra: JsonObject = {}) {
  const fake = fakeDeps({ policies: [policy], ports: { ...fakePorts(), signatures: nodeSignatures } });
  const result = handleValidate(
    reviewOf(object, { resource: { group: "apps", version: "v1", resource: "deployments" }, ...extra }),
    fake.deps,
  );
  assert.equal(result.status, 200);
  if (result.status !== 200) throw new Error("unreachable");
  return result.body.response;
}

describe("validate: validate.manifests in the webhook", () => {
  test("a Deployment signed by the policy's key is admitted", () => {
    assert.equal(review(signed(deploymentManifest(), [team])).allowed, true);
  });

  test("a tampered Deployment is denied, the message naming the changed field", () => {
    const good = signed(deploymentManifest(1), [team]);
    const response = review({ ...good, spec: { ...(good["spec"] as JsonObject), replicas: 9 } });
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /diff found; \{"items":\[\{"key":"spec\.replicas","values":\{"after":9,"before":1\}\}\]\}/,
    );
  });

  test("an unsigned Deployment is denied; the same under a dry-run request is allowed, as in Kyverno", () => {
    assert.equal(review(deploymentManifest()).allowed, false);
    assert.equal(review(deploymentManifest(), { dryRun: true }).allowed, true);
  });
});

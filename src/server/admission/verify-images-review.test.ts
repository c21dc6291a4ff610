/**
 * verifyImages in admission (`serve --cluster`): the validating webhook's `required` check verifies
 * the image's cosign signatures through the review-calls loop and the live image data port (ADR
 * 0012, 0015), against a registry the test serves (allowed by --egress-allow). A good signature is
 * admitted, the wrong key is denied with "unverified image", and a registry Bylaw may not reach is
 * a rule error under failurePolicy: never an allow on a check that was not made.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { nodeSignatures } from "../../platform/node-ports.js";
import { fakeContext, fakePorts } from "../../../test/support/fake-ports.js";
import { TestRegistry } from "../../../test/support/test-registry.js";
import { ecdsaKey, signPayload, simpleSigning } from "../../../test/support/cosign-signing.js";
import { EgressPolicy } from "../../kube/egress/egress-policy.js";
import { policyUsesNetworkCalls } from "../../kube/live-calls.js";
import { egressTransport } from "../../kube/registry/egress-transport.js";
import { liveImageData, type LiveRegistry } from "../../kube/registry/live-image-data.js";
import { PullSecrets } from "../../kube/registry/pull-secrets.js";
import { CallScopes } from "../../kube/review-calls.js";
import { RegistryClient } from "../../platform/registry/index.js";
import { handleValidateBatch } from "./index.js";
import type { ReviewCallsPort } from "./review-calls-loop.js";
import { fakeDeps, reviewOf } from "./test-support.js";
import type { AdmissionReviewJson, HandlerResult } from "./types.js";

const key = ecdsaKey();
const registry = new TestRegistry();

const policy = (): JsonObject => ({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "signed-images" },
  spec: {
    validationFailureAction: "Enforce",
    background: false,
    rules: [{
      name: "verify-signature",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      verifyImages: [{ imageReferences: [`${registry.host}/team/*`], verifyDigest: false, mutateDigest: false, attestors: [{ entries: [{ keys: { publicKeys: key.publicPem, rekor: { ignoreTlog: true } } }] }] }],
    }],
  },
});
const pod = (image: string): JsonObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "team" }, spec: { containers: [{ name: "c", image }] } });

describe("verifyImages in admission, through the review-calls loop", () => {
  before(async () => {
    await registry.start();
    for (const [name, k] of [["signed", key], ["forged", ecdsaKey()]] as const) {
      const digest = registry.add(`team/${name}`, "1", { config: {} });
      registry.sign(`team/${name}`, digest, [signPayload(k, simpleSigning(`${registry.host}/team/${name}`, digest))]);
    }
  });
  after(() => registry.stop());

  function setUp(allow: string[]) {
    const egress = EgressPolicy.create(allow);
    assert.ok(egress.ok);
    const scopes = new CallScopes();
    const live: LiveRegistry = { client: new RegistryClient({ transport: egressTransport(egress.value) }), scopes, secrets: new PullSecrets(async () => ({ data: {} })), ownNamespace: "bylaw", pullSecrets: [] };
    const ports = { ...fakePorts(), signatures: nodeSignatures, context: { ...fakeContext(), canLoad: () => true, imageData: (ref: string, req?: Parameters<typeof liveImageData>[2]) => liveImageData(live, ref, req ?? { form: "metadata" }) } };
    const fake = fakeDeps({ policies: [policy()], ports, realClock: true, deadlineSeconds: 5 });
    const port: ReviewCallsPort = { usesCalls: (p) => policyUsesNetworkCalls(p), begin: () => scopes.begin() };
    return { ...fake.deps, calls: port };
  }

  async function review(deps: ReturnType<typeof setUp>, image: string): Promise<AdmissionReviewJson> {
    const [answer] = handleValidateBatch([reviewOf(pod(image))], deps);
    return (await (answer as HandlerResult | Promise<HandlerResult>)).body as AdmissionReviewJson;
  }

  it("the signed image is admitted; the one signed with another key is denied as unverified", async () => {
    const deps = setUp(["127.0.0.0/8"]);
    assert.equal((await review(deps, `${registry.host}/team/signed:1`)).response?.allowed, true);
    const forged = await review(deps, `${registry.host}/team/forged:1`);
    assert.equal(forged.response?.allowed, false);
    assert.match(forged.response?.status?.message ?? "", new RegExp(`verify-signature: unverified image 127\\.0\\.0\\.1:\\d+/team/forged:1`));
  });

  it("a registry the egress filter refuses is a rule error under failurePolicy Fail, not an allow", async () => {
    const answer = await review(setUp([]), `${registry.host}/team/signed:1`);
    assert.equal(answer.response?.allowed, false);
    assert.match(answer.response?.status?.message ?? "", /failed to verify image .*the address is loopback/);
  });
});

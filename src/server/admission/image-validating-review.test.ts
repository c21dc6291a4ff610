/**
 * ImageValidatingPolicy in admission (`serve --cluster`), against a registry the test serves
 * (allowed by --egress-allow), through the review-calls loop and the live image data port: the
 * mutating webhook pins the tag to its digest (mutateDigest), the validating webhook verifies the
 * cosign signature (verifyImageSignatures): the signed image is admitted, an unsigned one denied
 * with the policy's message.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { TestRegistry } from "../../../test/support/test-registry.js";
import { ecdsaKey, signPayload, simpleSigning } from "../../../test/support/cosign-signing.js";
import { mutateObject, registryReviewDeps, reviewObject } from "../../../test/support/registry-review.js";
import { pod } from "../../../test/support/builders.js";

const key = ecdsaKey();
const registry = new TestRegistry();
const digests: Record<string, string> = {};

const policy = (): JsonObject => ({
  apiVersion: "policies.kyverno.io/v1",
  kind: "ImageValidatingPolicy",
  metadata: { name: "signed-images" },
  spec: {
    matchConstraints: {
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
    },
    matchImageReferences: [{ glob: `${registry.host}/team/*` }],
    attestors: [{ name: "cosign", cosign: { key: { data: key.publicPem }, ctlog: { insecureIgnoreTlog: true } } }],
    validations: [
      {
        expression: "images.containers.map(image, verifyImageSignatures(image, [attestors.cosign])).all(e, e > 0)",
        message: "failed the image Signature verification",
      },
    ],
  },
});
const teamPod = (image: string): JsonObject =>
  pod({ name: "p", namespace: "team", containers: [{ name: "c", image }] });

describe("ImageValidatingPolicy in admission, through the review-calls loop", () => {
  before(async () => {
    await registry.start();
    for (const name of ["signed", "unsigned"]) {
      const digest = registry.add(`team/${name}`, "1", { config: {} });
      digests[name] = digest;
      if (name === "signed")
        registry.sign(`team/${name}`, digest, [
          signPayload(key, simpleSigning(`${registry.host}/team/${name}`, digest)),
        ]);
    }
  });
  after(() => registry.stop());

  /** The Pod after the mutating webhook's patch (its image ops only). */
  const pinned = async (deps: ReturnType<typeof registryReviewDeps>, image: string): Promise<JsonObject> => {
    const mutated = await mutateObject(deps, teamPod(image));
    assert.equal(mutated.response?.allowed, true);
    const ops = JSON.parse(Buffer.from(mutated.response?.patch ?? "W10=", "base64").toString("utf8")) as {
      path: string;
      value: unknown;
    }[];
    const value = ops.find((o) => o.path === "/spec/containers/0/image")?.value;
    return teamPod(typeof value === "string" ? value : image);
  };

  it("mutateDigest pins the tag; the signed image is admitted, the unsigned one denied with the policy's message", async () => {
    const deps = registryReviewDeps({ policies: [policy()], allow: ["127.0.0.0/8"] });
    const signed = await pinned(deps, `${registry.host}/team/signed:1`);
    const images = ((signed["spec"] as JsonObject)["containers"] as JsonObject[]).map((c) => c["image"]);
    assert.deepEqual(images, [`${registry.host}/team/signed:1@${digests["signed"]}`]);
    assert.equal((await reviewObject(deps, signed)).response?.allowed, true);
    const denied = await reviewObject(deps, await pinned(deps, `${registry.host}/team/unsigned:1`));
    assert.equal(denied.response?.allowed, false);
    assert.equal(
      denied.response?.status?.message,
      "Policy signed-images failed: failed the image Signature verification",
    );
  });
});

/**
 * verifyImages in admission (`serve --cluster`): the mutating webhook verifies and rewrites tags to
 * digests with the verify-images annotation; the validating webhook's `required` check verifies
 * the image's cosign signatures through the review-calls loop and the live image data port (ADR
 * 0012, 0015), against a registry the test serves (allowed by --egress-allow). A good signature is
 * admitted, the wrong key is denied with "unverified image", and a registry Bylaw may not reach is
 * a rule error under failurePolicy: never an allow on a check that was not made.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { TestRegistry } from "../../../test/support/test-registry.js";
import {
  ecdsaKey,
  inTotoStatement,
  signAttestation,
  signPayload,
  simpleSigning,
} from "../../../test/support/cosign-signing.js";
import { mutateObject, registryReviewDeps, reviewObject } from "../../../test/support/registry-review.js";
import type { AdmissionReviewJson } from "./types.js";
import { pod } from "../../../test/support/builders.js";

const key = ecdsaKey();
const SLSA = "https://slsa.dev/provenance/v0.2";
const registry = new TestRegistry();
const digests: Record<string, string> = {};

const policy = (entry: JsonObject = { verifyDigest: false, mutateDigest: false }): JsonObject => ({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "signed-images" },
  spec: {
    validationFailureAction: "Enforce",
    background: false,
    rules: [
      {
        name: "verify-signature",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        verifyImages: [
          {
            imageReferences: [`${registry.host}/team/*`],
            ...entry,
            attestors: [{ entries: [{ keys: { publicKeys: key.publicPem, rekor: { ignoreTlog: true } } }] }],
          },
        ],
      },
    ],
  },
});
/** A Pod `p` in namespace team running `image`. */
const teamPod = (image: string): JsonObject =>
  pod({ name: "p", namespace: "team", containers: [{ name: "c", image }] });

/**
 * The mutating webhook's patch pins the signed image's digest and writes the verify-images
 * annotation saying it passed; the annotations it writes.
 */
function assertSignedPinned(mutated: AdmissionReviewJson): Record<string, string> | undefined {
  const digest = digests["signed"] ?? "";
  const ops = JSON.parse(Buffer.from(mutated.response?.patch ?? "", "base64").toString("utf8")) as {
    path: string;
    value: unknown;
  }[];
  assert.equal(
    ops.find((o) => o.path === "/spec/containers/0/image")?.value,
    `${registry.host}/team/signed:1@${digest}`,
  );
  const annotations = ops.find((o) => o.path === "/metadata/annotations")?.value as Record<string, string> | undefined;
  assert.equal(
    annotations?.["kyverno.io/verify-images"],
    JSON.stringify({ [`${registry.host}/team/signed@${digest}`]: "pass" }),
  );
  return annotations;
}

describe("verifyImages in admission, through the review-calls loop", () => {
  before(async () => {
    await registry.start();
    for (const [name, k] of [
      ["signed", key],
      ["forged", ecdsaKey()],
    ] as const) {
      const digest = registry.add(`team/${name}`, "1", { config: {} });
      digests[name] = digest;
      registry.sign(`team/${name}`, digest, [signPayload(k, simpleSigning(`${registry.host}/team/${name}`, digest))]);
      registry.attest(`team/${name}`, digest, [
        signAttestation(k, inTotoStatement(`${registry.host}/team/${name}`, digest, SLSA, { builder: { id: "ci" } })),
      ]);
    }
  });
  after(() => registry.stop());

  const setUp = (allow: string[]) => registryReviewDeps({ policies: [policy()], allow });
  const review = (deps: ReturnType<typeof setUp>, image: string): Promise<AdmissionReviewJson> =>
    reviewObject(deps, teamPod(image));

  it("the signed image is admitted; the one signed with another key is denied as unverified", async () => {
    const deps = setUp(["127.0.0.0/8"]);
    assert.equal((await review(deps, `${registry.host}/team/signed:1`)).response?.allowed, true);
    const forged = await review(deps, `${registry.host}/team/forged:1`);
    assert.equal(forged.response?.allowed, false);
    assert.match(
      forged.response?.status?.message ?? "",
      new RegExp(`verify-signature: unverified image 127\\.0\\.0\\.1:\\d+/team/forged:1`),
    );
  });

  it("the mutating webhook rewrites the tag to the digest and writes the verify-images annotation; the validating webhook then admits", async () => {
    const digest = digests["signed"] ?? "";
    const deps = registryReviewDeps({ policies: [policy({})], allow: ["127.0.0.0/8"] });
    const mutated = await mutateObject(deps, teamPod(`${registry.host}/team/signed:1`));
    assert.equal(mutated.response?.allowed, true);
    const annotations = assertSignedPinned(mutated);
    const admitted = await reviewObject(deps, {
      ...teamPod(`${registry.host}/team/signed:1@${digest}`),
      metadata: { name: "p", namespace: "team", annotations: annotations ?? {} },
    });
    assert.equal(admitted.response?.allowed, true);
    const forged = await mutateObject(deps, teamPod(`${registry.host}/team/forged:1`));
    assert.equal(
      forged.response?.allowed,
      false,
      "a failed verification under Enforce is denied by the mutating webhook, as Kyverno's",
    );
    assert.equal(forged.response?.patch, undefined);
    assert.match(
      forged.response?.status?.message ?? "",
      /signed-images:\n {2}verify-signature: .*no matching signatures/,
    );
  });

  it("every policy's mutate rules run before any policy's verifyImages rules, as Kyverno's mutating webhook: a later policy's rewrite is what is verified", async () => {
    // The verifyImages policy is first; the policy after it moves the image to the signed repository.
    const rewrite: JsonObject = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "to-team" },
      spec: {
        rules: [
          {
            name: "move",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            mutate: {
              foreach: [
                {
                  list: "request.object.spec.containers",
                  patchStrategicMerge: {
                    spec: { containers: [{ name: "{{ element.name }}", image: `${registry.host}/team/signed:1` }] },
                  },
                },
              ],
            },
          },
        ],
      },
    };
    const deps = registryReviewDeps({ policies: [policy({}), rewrite], allow: ["127.0.0.0/8"] });
    const mutated = await mutateObject(deps, teamPod("docker.io/library/nginx:1"));
    assert.equal(mutated.response?.allowed, true, mutated.response?.status?.message);
    // Verified after the move: the digest is pinned and the annotation says so.
    assertSignedPinned(mutated);
  });

  it("a registry the egress filter refuses is a rule error under failurePolicy Fail, not an allow", async () => {
    const answer = await review(setUp([]), `${registry.host}/team/signed:1`);
    assert.equal(answer.response?.allowed, false);
    assert.match(answer.response?.status?.message ?? "", /failed to verify image .*the address is loopback/);
  });

  it("attestations: the image attested with the key, whose conditions hold, is admitted; the one attested with another key is denied", async () => {
    const attested = policy({ verifyDigest: false, mutateDigest: false });
    const rule = ((attested["spec"] as JsonObject)["rules"] as JsonObject[])[0] as JsonObject;
    const conditions = [{ all: [{ key: "{{ builder.id }}", operator: "Equals", value: "ci" }] }];
    rule["verifyImages"] = [
      {
        imageReferences: [`${registry.host}/team/*`],
        verifyDigest: false,
        mutateDigest: false,
        attestations: [
          {
            type: SLSA,
            conditions,
            attestors: [{ entries: [{ keys: { publicKeys: key.publicPem, rekor: { ignoreTlog: true } } }] }],
          },
        ],
      },
    ];
    const deps = registryReviewDeps({ policies: [attested], allow: ["127.0.0.0/8"] });
    assert.equal((await reviewObject(deps, teamPod(`${registry.host}/team/signed:1`))).response?.allowed, true);
    const forged = await mutateObject(deps, teamPod(`${registry.host}/team/forged:1`));
    assert.equal(forged.response?.allowed, false);
    assert.match(
      forged.response?.status?.message ?? "",
      /image attestations verification failed, verifiedCount: 0, requiredCount: 1, error: no matching attestations/,
    );
  });
});

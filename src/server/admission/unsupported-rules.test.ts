/**
 * The validating webhook never lets a rule Bylaw cannot run pass silently: an unsigned image under an
 * Enforce verifyImages rule is an evaluation error, answered under the policy's failurePolicy
 * (Kyverno's BlockRequest, pkg/webhooks/utils/block.go: an error blocks under Fail).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { handleValidate } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const unsigned = pod({ name: "web", containers: [{ name: "app", image: "ghcr.io/acme/unsigned:1.0" }] });
const verify = (spec: JsonObject, entry: JsonObject = {}): JsonObject =>
  clusterPolicy(
    "verify-images",
    [
      {
        name: "check-signature",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        // The key's Rekor log is not ignored: Bylaw cannot check it, so the image is never verified.
        verifyImages: [
          {
            imageReferences: ["ghcr.io/acme/*"],
            verifyDigest: false,
            attestors: [
              { entries: [{ keys: { publicKeys: "-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----" } }] },
            ],
            ...entry,
          },
        ],
      },
    ],
    spec,
  );

function validate(policy: JsonObject) {
  const fake = fakeDeps({ policies: [policy] });
  const result = handleValidate(reviewOf(unsigned), fake.deps);
  assert.equal(result.status, 200);
  if (result.status !== 200) throw new Error("unreachable");
  return { response: result.body.response, audit: result.auditResults ?? [], recorded: fake.results };
}

describe("validate: a verifyImages rule Bylaw cannot run", () => {
  test("Enforce under failurePolicy Fail: the unsigned image is denied, the message names verifyImages", () => {
    const { response } = validate(verify({ validationFailureAction: "Enforce", failurePolicy: "Fail" }));
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /verify-images:\n {2}check-signature: '?failed to verify image ghcr\.io\/acme\/unsigned:1\.0: \.attestors\[0\]\.entries\[0\]\.keys: Bylaw does not check the Rekor transparency log/,
    );
  });

  test("failurePolicy unset is Fail: denied", () => {
    assert.equal(validate(verify({ validationFailureAction: "Enforce" })).response.allowed, false);
  });

  test("an entry's failureAction Enforce blocks under Fail, with the spec left at Audit", () => {
    assert.equal(validate(verify({ failurePolicy: "Fail" }, { failureAction: "Enforce" })).response.allowed, false);
  });

  test("Enforce under failurePolicy Ignore: allowed, and the error is reported", () => {
    const { response, audit, recorded } = validate(
      verify({ validationFailureAction: "Enforce", failurePolicy: "Ignore" }),
    );
    assert.equal(response.allowed, true);
    const errors = audit.flatMap((r) => r.rules).filter((r) => r.status === "error");
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? "", /Bylaw does not check the Rekor transparency log/);
    assert.deepEqual(
      recorded.map((r) => [r.policy.name, r.rule, r.result]),
      [["verify-images", "check-signature", "error"]],
    );
  });
});

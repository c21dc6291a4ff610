/** Kyverno's admission checks of verifyImages entries: what makes a policy invalid before it runs. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { PolicyDocument } from "../api/policy.js";
import { checkVerifyImages } from "./check-verify-images.js";

const doc = (action: string | undefined, entries: object[]): PolicyDocument =>
  ({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: {
      ...(action !== undefined ? { validationFailureAction: action } : {}),
      rules: [{ name: "r", verifyImages: entries }],
    },
  }) as unknown as PolicyDocument;
const problems = (d: PolicyDocument): string[] =>
  checkVerifyImages(d, d.spec.rules?.[0] ?? ({} as never), "spec.rules[0]").map((p) => `${p.path}: ${p.message}`);

test("an Audit entry must set mutateDigest: false (the CRD defaults it to true)", () => {
  assert.deepEqual(problems(doc(undefined, [{ imageReferences: ["*"] }])), [
    "spec.rules[0].verifyImages[0].mutateDigest: mutateDigest must be set to false for ‘Audit’ failure action",
  ]);
  assert.deepEqual(problems(doc("Audit", [{ imageReferences: ["*"], mutateDigest: false }])), []);
  assert.deepEqual(problems(doc("Enforce", [{ imageReferences: ["*"] }])), []);
  // An entry's own failureAction decides for it and the entries after it.
  assert.deepEqual(
    problems(doc("Enforce", [{ imageReferences: ["*"], failureAction: "Audit" }, { imageReferences: ["*"] }])).length,
    2,
  );
  assert.deepEqual(problems(doc("Audit", [{ imageReferences: ["*"], failureAction: "Enforce" }])), []);
});

test("an image reference is required, and holds no variables", () => {
  assert.deepEqual(problems(doc("Enforce", [{}])), ["spec.rules[0].verifyImages[0]: An image reference is required"]);
  assert.deepEqual(problems(doc("Enforce", [{ image: "ghcr.io/*" }])), []);
  assert.deepEqual(problems(doc("Enforce", [{ imageReferences: ["{{ request.object.metadata.name }}"] }])), [
    "spec.rules[0].verifyImages[0]: should not have variables in image reference section",
  ]);
});

/**
 * A results entry may name a test file's JSON payload by its file, as the test file writes it:
 * Kyverno's test CLI keeps a payload's responses under that name. A row naming another file still
 * finds nothing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuites } from "./run-suite.js";

const jsonPolicy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: private-buckets}
spec:
  evaluation: {mode: JSON}
  validations:
    - expression: "object.buckets.all(b, b.acl == 'private')"
      message: S3 buckets must be private
`;

test("a row naming the payload's file (as the test file writes it) finds the payload's result", async () => {
  const dir = tempTree({
    "policy.yaml": jsonPolicy,
    "plans/public.json": JSON.stringify({ buckets: [{ acl: "public-read" }] }),
    "plans/private.json": JSON.stringify({ buckets: [{ acl: "private" }] }),
    "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: plans}
policies: [policy.yaml]
jsonPayloads: [plans/public.json, plans/private.json]
results:
  - {policy: private-buckets, rule: private, resources: [plans/public.json], result: fail}
  - {policy: private-buckets, resources: [plans/private.json], result: pass, isValidatingPolicy: true}
  - {policy: private-buckets, resources: [plans/other.json], result: pass, isValidatingPolicy: true}
`,
  });
  const [suite] = await runSuites(join(dir, "kyverno-test.yaml"), offlineEngine);
  assert.equal(suite?.error, undefined, suite?.error);
  assert.deepEqual(
    suite?.results.map((r) => [r.resource, r.actual, r.reason]),
    [
      ["plans/public.json", "fail", "Ok"],
      ["plans/private.json", "pass", "Ok"],
      ["plans/other.json", null, "Not found"],
    ],
  );
});

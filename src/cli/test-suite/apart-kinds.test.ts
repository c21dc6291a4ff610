/**
 * `bylaw test` runs ImageValidatingPolicies and DeletingPolicies as Kyverno's test does: apart from
 * the resource's stages, on the resource as the suite gives it (a mutate policy's patch is not what
 * they see) and, for an ImageValidatingPolicy, without mutating digests first.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuites } from "./run-suite.js";

const addLabel = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-owner}
spec:
  rules:
    - name: owner
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {owner: platform}}, spec: {containers: [{(name): "*", image: ghcr.io/web:1}]}}}
`;
const deleteUnowned = `apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata: {name: unowned}
spec:
  schedule: "*/5 * * * *"
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [pods]}]
  conditions: [{name: no-owner, expression: "!has(object.metadata.labels) || !('owner' in object.metadata.labels)"}]
`;
const ghcrOnly = `apiVersion: policies.kyverno.io/v1
kind: ImageValidatingPolicy
metadata: {name: ghcr-only}
spec:
  validationActions: [Audit]
  validationConfigurations: {verifyDigest: false, required: false}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  matchImageReferences: [{glob: "*"}]
  attestors:
    - {name: cosign, cosign: {key: {data: "-----BEGIN PUBLIC KEY-----\\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8nXRh950IZbRj8Ra/N9sbqOPZrfM\\n5/KAQN0/KjHcorm/J5yctVd7iEcnessRQjU917hmKO6JWVGHpDguIyakZA==\\n-----END PUBLIC KEY-----"}}}
  validations: [{expression: "images.containers.all(i, i.startsWith('ghcr.io/'))", message: images come from ghcr.io}]
`;
const pod = `apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: default}
spec: {containers: [{name: c, image: docker.io/web:1}]}
`;

test("ImageValidatingPolicies and DeletingPolicies decide on the resource as given, not as mutate policies patched it", async () => {
  const dir = tempTree({
    "policy.yaml": [addLabel, deleteUnowned, ghcrOnly].join("---\n"),
    "resources.yaml": pod,
    "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: as-given}
policies: [policy.yaml]
resources: [resources.yaml]
results:
  - {policy: add-owner, rule: owner, resources: [bare], kind: Pod, result: pass}
  - {policy: unowned, resources: [bare], result: pass}
  - {policy: ghcr-only, resources: [bare], result: fail}
`,
  });
  const [suite] = await runSuites(join(dir, "kyverno-test.yaml"), offlineEngine);
  assert.equal(suite?.error, undefined, suite?.error);
  assert.deepEqual(
    suite?.results.map((r) => [r.policy, r.resource, r.actual, r.reason]),
    [
      ["add-owner", "bare", "pass", "Ok"],
      ["unowned", "bare", "pass", "Ok"],
      ["ghcr-only", "bare", "fail", "Ok"],
    ],
  );
});

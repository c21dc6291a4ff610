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
import { GHCR_ONLY_IVP } from "../../../test/support/image-policies.js";
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
const pod = `apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: default}
spec: {containers: [{name: c, image: docker.io/web:1}]}
`;

test("ImageValidatingPolicies and DeletingPolicies decide on the resource as given, not as mutate policies patched it", async () => {
  const dir = tempTree({
    "policy.yaml": [addLabel, deleteUnowned, GHCR_ONLY_IVP].join("---\n"),
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

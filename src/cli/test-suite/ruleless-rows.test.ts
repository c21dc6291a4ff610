/**
 * Kyverno's test CLI tells the rule-less kinds by the policy's kind (v1.19 reads none of the row flags
 * such as isValidatingPolicy): a row naming a rule of a ValidatingPolicy or a DeletingPolicy is
 * compared whatever the rule it names, with or without the flag. A ClusterPolicy's rule is still
 * compared by name.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuites } from "./run-suite.js";

const validatingPolicy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: labelled}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: "has(object.metadata.labels)", message: labels are required}]
`;
const deletingPolicy = `apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata: {name: old-pods}
spec:
  schedule: "*/5 * * * *"
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [pods]}]
  conditions: [{name: bare, expression: "!has(object.metadata.labels)"}]
`;
const pods = `apiVersion: v1
kind: Pod
metadata: {name: bare}
spec: {containers: [{name: c, image: web:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: tidy, labels: {a: b}}
spec: {containers: [{name: c, image: web:1}]}
`;

test("rows naming a rule of a ValidatingPolicy or DeletingPolicy, without isValidatingPolicy, compare the policy's result", async () => {
  const dir = tempTree({
    "policy.yaml": `${validatingPolicy}---\n${deletingPolicy}`,
    "resources.yaml": pods,
    "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: named-rules}
policies: [policy.yaml]
resources: [resources.yaml]
results:
  - {policy: labelled, rule: require-labels, resources: [bare], result: fail}
  - {policy: labelled, rule: require-labels, resources: [tidy], result: fail}
  - {policy: old-pods, rule: anything, resources: [bare], result: pass}
  - {policy: old-pods, rule: anything, resources: [tidy], result: fail}
`,
  });
  const [suite] = await runSuites(join(dir, "kyverno-test.yaml"), offlineEngine);
  assert.equal(suite?.error, undefined, suite?.error);
  assert.deepEqual(
    suite?.results.map((r) => [r.policy, r.resource, r.actual, r.reason]),
    [
      ["labelled", "bare", "fail", "Ok"],
      ["labelled", "tidy", "pass", "Want fail, got pass"],
      ["old-pods", "bare", "pass", "Ok"],
      ["old-pods", "tidy", "fail", "Ok"],
    ],
  );
});

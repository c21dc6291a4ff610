/**
 * `bylaw test` takes Kyverno's cluster path for ValidatingAdmissionPolicy bindings when the test file
 * gives clusterResources (Kyverno 1.19 commands/test: `Cluster: len(ClusterResources) > 0`, then
 * pkg/admissionpolicy `processVAPWithClient` and `CollectParams`), and the offline path otherwise.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../../offline/offline-engine.js";
import { runSuites } from "../../test-suite/run-suite.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-containers}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
  - expression: "size(object.spec.containers) <= int(params.data.max)"
    messageExpression: "'at most ' + params.data.max"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-containers-binding}
spec:
  policyName: max-containers
  validationActions: [Deny]
  paramRef: {name: limits}
`;
const limits = (ns: string, max: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: limits, namespace: ${ns}}\ndata: {max: "${max}"}\n`;
const pod = `apiVersion: v1
kind: Pod
metadata: {name: two, namespace: team}
spec: {containers: [{name: a, image: nginx}, {name: b, image: nginx}]}
`;

function suite(withCluster: boolean): string {
  const root = tempTree({
    "policy.yaml": policy,
    "resources.yaml": pod,
    // The first object named limits is in another namespace: offline, Kyverno's CLI takes it anyway.
    "params.yaml": `${limits("elsewhere", "1")}---\n${limits("team", "3")}`,
    "cluster.yaml": `apiVersion: cli.kyverno.io/v1alpha1\nkind: ClusterResource\nmetadata: {name: cluster}\nspec:\n  resources: [{apiVersion: v1, kind: Namespace, metadata: {name: team, labels: {env: prod}}}]\n`,
    "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: vap}
policies: [policy.yaml]
resources: [resources.yaml]
paramResources: [params.yaml]
${withCluster ? "clusterResources: [cluster.yaml]\n" : ""}results:
- {policy: max-containers, rule: max-containers, resources: [two], kind: Pod, result: ${withCluster ? "pass" : "fail"}}
`,
  });
  return join(root, "kyverno-test.yaml");
}

describe("bylaw test: ValidatingAdmissionPolicy with and without clusterResources", () => {
  test("offline: the binding's paramRef takes the first object named limits, in any namespace", async () => {
    const [r] = await runSuites(suite(false), offlineEngine);
    assert.deepEqual(r?.results.map((x) => [x.actual, x.ok, x.message]), [["fail", true, "at most 1"]]);
  });

  test("with clusterResources: params are read in the request's namespace, as Kyverno's CollectParams reads them", async () => {
    const [r] = await runSuites(suite(true), offlineEngine);
    assert.deepEqual(r?.results.map((x) => [x.actual, x.ok]), [["pass", true]]);
  });
});
